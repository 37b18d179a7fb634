#include "gateway/auth/jwks.hpp"

#include <openssl/core_names.h>
#include <simdjson.h>

#include <stdexcept>

#include "gateway/auth/token.hpp"

namespace herald::gateway::auth {
namespace {

namespace dom = simdjson::dom;

// A JWK member that must be a base64url string (RFC 7518 6: n, e, x, y),
// decoded; throws naming it.
std::string member_bytes(dom::object key, std::string_view name, const std::string& where) {
  std::string_view text;
  if (key[name].get(text) != simdjson::SUCCESS) {
    throw std::invalid_argument(where + ": \"" + std::string(name) +
                                "\" is missing or not a string");
  }
  auto bytes = base64url_decode(text);
  if (!bytes || bytes->empty()) {
    throw std::invalid_argument(where + ": \"" + std::string(name) + "\" is not base64url");
  }
  return *bytes;
}

OpensslPtr<BIGNUM> big_endian(const std::string& bytes) {
  // Safety: BN_bin2bn reads bytes.size() bytes, which a JWK keeps far below
  // INT_MAX; char and unsigned char share a representation.
  return OpensslPtr<BIGNUM>(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()), nullptr));
}

// A public key from OSSL_PARAMs, as OpenSSL 3 builds one of `type`.
OpensslPtr<EVP_PKEY> from_params(const char* type, OSSL_PARAM_BLD* build) {
  OpensslPtr<OSSL_PARAM> params(OSSL_PARAM_BLD_to_param(build));
  OpensslPtr<EVP_PKEY_CTX> ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* out = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &out, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  return OpensslPtr<EVP_PKEY>(out);
}

Jwks::Key rsa_key(dom::object jwk, const std::string& where) {
  const std::string n = member_bytes(jwk, "n", where), e = member_bytes(jwk, "e", where);
  OpensslPtr<BIGNUM> bn_n = big_endian(n), bn_e = big_endian(e);
  OpensslPtr<OSSL_PARAM_BLD> build(OSSL_PARAM_BLD_new());
  if (!bn_n || !bn_e || !build ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    throw std::invalid_argument(where + ": cannot read n and e");
  }
  Jwks::Key key;
  key.rsa = true;
  key.pkey = from_params("RSA", build.get());
  if (!key.pkey) throw std::invalid_argument(where + ": n and e are not an RSA public key");
  key.bits = EVP_PKEY_get_bits(key.pkey.get());
  if (key.bits < kMinRsaBits) {
    throw std::invalid_argument(where + ": a " + std::to_string(key.bits) +
                                "-bit RSA key; RS256 needs at least " +
                                std::to_string(kMinRsaBits) + " bits");
  }
  return key;
}

// P-256 and P-384 (RFC 7518 6.2.1.1): their OpenSSL group names and the
// size of a coordinate.
struct Curve {
  std::string_view crv;
  const char* group;
  std::size_t coordinate;
  int bits;
};
constexpr Curve kCurves[] = {{"P-256", "prime256v1", 32, 256}, {"P-384", "secp384r1", 48, 384}};

Jwks::Key ec_key(dom::object jwk, const Curve& curve, const std::string& where) {
  const std::string x = member_bytes(jwk, "x", where), y = member_bytes(jwk, "y", where);
  if (x.size() != curve.coordinate || y.size() != curve.coordinate) {
    throw std::invalid_argument(where + ": x and y must be " + std::to_string(curve.coordinate) +
                                " bytes each on " + std::string(curve.crv));
  }
  // The uncompressed point (SEC 1 2.3.3): 0x04, x, y.
  const std::string point = '\x04' + x + y;
  OpensslPtr<OSSL_PARAM_BLD> build(OSSL_PARAM_BLD_new());
  if (!build ||
      OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, curve.group, 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    throw std::invalid_argument(where + ": cannot read x and y");
  }
  Jwks::Key key;
  key.bits = curve.bits;
  key.pkey = from_params("EC", build.get());
  // fromdata takes the point as given; the check puts it on the curve (a
  // point off it is how invalid-curve attacks begin).
  OpensslPtr<EVP_PKEY_CTX> check(
      key.pkey ? EVP_PKEY_CTX_new_from_pkey(nullptr, key.pkey.get(), nullptr) : nullptr);
  if (!check || EVP_PKEY_public_check(check.get()) != 1) {
    throw std::invalid_argument(where + ": x and y are not a point on " + std::string(curve.crv));
  }
  return key;
}

}  // namespace

Jwks Jwks::parse(std::string_view json, std::vector<std::string>* skipped) {
  auto skip = [skipped](std::string line) {
    if (skipped != nullptr) skipped->push_back(std::move(line));
  };
  dom::parser parser;
  dom::object doc;
  dom::array keys;
  if (parser.parse(json.data(), json.size()).get(doc) != simdjson::SUCCESS ||
      doc["keys"].get(keys) != simdjson::SUCCESS) {
    throw std::invalid_argument(R"(not a JWK set: expected {"keys":[...]})");
  }
  Jwks set;
  std::size_t index = 0;
  for (dom::element element : keys) {
    std::string where = "keys[" + std::to_string(index++) + "]";
    dom::object jwk;
    if (element.get(jwk) != simdjson::SUCCESS)
      throw std::invalid_argument(where + ": not an object");
    std::string_view kty, kid, use, alg, crv;
    if (jwk["kty"].get(kty) != simdjson::SUCCESS) {
      throw std::invalid_argument(where + ": \"kty\" is missing or not a string");
    }
    if (jwk["kid"].get(kid) != simdjson::SUCCESS || kid.empty()) {
      skip(where + ": no kid, so no token can name it");
      continue;
    }
    where += " (kid '" + std::string(kid) + "')";
    if (jwk["use"].get(use) == simdjson::SUCCESS && use != "sig") {
      skip(where + ": use is '" + std::string(use) + "', not sig");
      continue;
    }
    if (jwk["alg"].get(alg) != simdjson::SUCCESS) alg = {};
    Key key;
    if (kty == "RSA") {
      key = rsa_key(jwk, where);
    } else if (kty == "EC") {
      if (jwk["crv"].get(crv) != simdjson::SUCCESS) crv = {};
      const Curve* curve = nullptr;
      for (const Curve& c : kCurves) {
        if (c.crv == crv) curve = &c;
      }
      if (curve == nullptr) {
        skip(where + ": curve '" + std::string(crv) + "' (ES256 and ES384 take P-256 and P-384)");
        continue;
      }
      key = ec_key(jwk, *curve, where);
    } else {
      skip(where + ": key type '" + std::string(kty) + "' (RSA and EC keys are read)");
      continue;
    }
    key.alg.assign(alg);
    if (!set.keys_.emplace(std::string(kid), std::move(key)).second) {
      throw std::invalid_argument(where + ": a second key with this kid");
    }
  }
  if (set.keys_.empty()) {
    throw std::invalid_argument("no RSA or EC signing key with a kid in the set");
  }
  return set;
}

const Jwks::Key* Jwks::find(std::string_view kid) const {
  auto it = keys_.find(kid);
  return it == keys_.end() ? nullptr : &it->second;
}

}  // namespace herald::gateway::auth
