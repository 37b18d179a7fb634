#include "gateway/auth/token.hpp"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>

#include "core/json.hpp"
#include "core/openssl_ptr.hpp"
#include "gateway/auth/jwks.hpp"
#include "gateway/protocol/room_name.hpp"
#include "gateway/protocol/user_name.hpp"

namespace herald::gateway::auth {
namespace {

// The digest of a JWS alg's family (RFC 7518 3.2 HS*, 3.3 RS*, 3.4 ES*): its
// last three characters, 256, 384 or 512; null for any other. Centrifugo
// issues HS and RS at all three and ES256/ES384, so the verifier takes those.
const EVP_MD* alg_digest(std::string_view alg) {
  if (alg.size() != 5) return nullptr;
  const std::string_view bits = alg.substr(2);
  if (bits == "256") return EVP_sha256();
  if (bits == "384") return EVP_sha384();
  if (bits == "512") return EVP_sha512();
  return nullptr;
}

std::string hmac(const EVP_MD* md, std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int len = 0;
  // Safety: HMAC reads key.size() and data.size() bytes from these pointers;
  // unsigned char and char have the same representation.
  HMAC(md, key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &len);
  return std::string(reinterpret_cast<const char*>(out.data()), len);
}

bool digest_verify(const EVP_MD* md, EVP_PKEY* key, std::string_view data,
                   std::string_view signature) {
  OpensslPtr<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, key) != 1) return false;
  // Safety: OpenSSL reads exactly these byte ranges; char and unsigned char
  // share a representation.
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(data.data()),
                          data.size()) == 1;
}

// ES256/ES384 (RFC 7518 3.4): the signature is R || S, each as many bytes
// as the curve's order (32 for P-256, 48 for P-384), big-endian; OpenSSL
// verifies the DER form (RFC 3279), so it is re-encoded first. A signature
// of any other length is refused unread.
bool ecdsa_verify(const EVP_MD* md, EVP_PKEY* key, std::size_t half, std::string_view data,
                  std::string_view signature) {
  if (signature.size() != 2 * half) return false;
  // Safety: BN_bin2bn reads `half` bytes from each; char and unsigned char
  // share a representation, and half is 32 or 48.
  const auto* raw = reinterpret_cast<const unsigned char*>(signature.data());
  OpensslPtr<BIGNUM> r(BN_bin2bn(raw, static_cast<int>(half), nullptr));
  OpensslPtr<BIGNUM> s(BN_bin2bn(raw + half, static_cast<int>(half), nullptr));
  OpensslPtr<ECDSA_SIG> sig(ECDSA_SIG_new());
  if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return false;
  static_cast<void>(r.release());  // owned by sig from here
  static_cast<void>(s.release());
  unsigned char* der = nullptr;
  const int len = i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) return false;
  // Safety: i2d_ECDSA_SIG wrote len bytes at der, freed below.
  const bool ok = digest_verify(
      md, key, data,
      std::string_view(reinterpret_cast<const char*>(der), static_cast<std::size_t>(len)));
  OPENSSL_free(der);
  return ok;
}

// Checks a public-key signature (RS* or ES*) with `key`, an RSA key or an
// EC key of `bits` (256 or 384): unsupported_alg when the alg does not fit
// the key (RS* with an EC key, ES384 with a P-256 one, HS* with either),
// bad_signature when it fits and does not verify.
std::optional<TokenError> check_public(std::string_view alg, const EVP_MD* md, EVP_PKEY* key,
                                       bool rsa, int bits, std::string_view input,
                                       std::string_view signature) {
  if (rsa && alg.starts_with("RS")) {
    if (!digest_verify(md, key, input, signature)) return TokenError::bad_signature;
    return std::nullopt;
  }
  if (!rsa && alg.starts_with("ES") && alg.substr(2) == std::to_string(bits)) {
    // Safety: bits is 256 or 384 (an EC key of P-256 or P-384), so half is
    // 32 or 48.
    const auto half = static_cast<std::size_t>(bits / 8);
    if (!ecdsa_verify(md, key, half, input, signature)) return TokenError::bad_signature;
    return std::nullopt;
  }
  return TokenError::unsupported_alg;
}

// The public key a PEM text holds (-----BEGIN PUBLIC KEY-----), or null.
OpensslPtr<EVP_PKEY> read_public_key(std::string_view pem) {
  OpensslPtr<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return OpensslPtr<EVP_PKEY>(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr)
                                  : nullptr);
}

std::string claims_json(const Claims& claims) {
  std::string payload = "{\"sub\":";
  json::append_string(payload, claims.user);
  if (claims.expires_at) payload += ",\"exp\":" + std::to_string(*claims.expires_at);
  if (claims.not_before) payload += ",\"nbf\":" + std::to_string(*claims.not_before);
  if (claims.rooms) {
    payload += ",\"rooms\":[";
    for (std::size_t i = 0; i < claims.rooms->size(); ++i) {
      if (i) payload += ',';
      json::append_string(payload, (*claims.rooms)[i]);
    }
    payload += ']';
  }
  if (!claims.subs.empty()) {
    payload += ",\"subs\":[";
    for (std::size_t i = 0; i < claims.subs.size(); ++i) {
      if (i) payload += ',';
      json::append_string(payload, claims.subs[i]);
    }
    payload += ']';
  }
  if (!claims.info_json.empty()) payload += ",\"info\":" + claims.info_json;
  if (!claims.meta_json.empty()) payload += ",\"meta\":" + claims.meta_json;
  if (claims.expire_at) payload += ",\"expire_at\":" + std::to_string(*claims.expire_at);
  for (auto [field, value] : {std::pair{"channel", &claims.channel}, {"client", &claims.client}}) {
    if (value->empty()) continue;
    payload += ",\"";
    payload += field;
    payload += "\":";
    json::append_string(payload, *value);
  }
  if (claims.issuer) {
    payload += ",\"iss\":";
    json::append_string(payload, *claims.issuer);
  }
  if (claims.audience.size() == 1) {
    payload += ",\"aud\":";
    json::append_string(payload, claims.audience.front());
  } else if (!claims.audience.empty()) {
    payload += ",\"aud\":[";
    for (std::size_t i = 0; i < claims.audience.size(); ++i) {
      if (i) payload += ',';
      json::append_string(payload, claims.audience[i]);
    }
    payload += ']';
  }
  payload += '}';
  return payload;
}

// `obj`'s "override", if it has one, into `out`; false when it is not of
// Centrifugo's form (the token is then refused as bad_claim).
bool read_override(simdjson::dom::object obj, SubscribeOverride& out) {
  simdjson::dom::element e;
  if (obj["override"].get(e) != simdjson::SUCCESS) return true;
  return !read_subscribe_override(e, out).has_value();
}

}  // namespace

TokenVerifier::TokenVerifier(std::string secret, std::string_view rsa_public_key_pem,
                             Expected expected, std::string_view ecdsa_public_key_pem)
    : secret_(std::move(secret)), expected_(std::move(expected)) {
  // Both keys are read before either is kept, so a refusal of the second
  // leaves nothing owned behind (the destructor does not run for a
  // constructor that throws).
  OpensslPtr<EVP_PKEY> ecdsa;
  if (!ecdsa_public_key_pem.empty()) {
    ecdsa = read_public_key(ecdsa_public_key_pem);
    // ES256 is P-256, ES384 P-384 (RFC 7518 3.4): the key's size says
    // which alg it verifies.
    const int bits =
        ecdsa && EVP_PKEY_base_id(ecdsa.get()) == EVP_PKEY_EC ? EVP_PKEY_get_bits(ecdsa.get()) : 0;
    if (bits != 256 && bits != 384) {
      throw KeyError(KeyError::Key::ecdsa,
                     "not a PEM public key on P-256 or P-384 (-----BEGIN PUBLIC KEY-----; make one "
                     "with: openssl ecparam -name prime256v1 -genkey -noout -out key.pem && "
                     "openssl ec -in key.pem -pubout)");
    }
    ecdsa_bits_ = bits;
  }
  OpensslPtr<EVP_PKEY> rsa;
  if (!rsa_public_key_pem.empty()) {
    rsa = read_public_key(rsa_public_key_pem);
    if (!rsa || EVP_PKEY_base_id(rsa.get()) != EVP_PKEY_RSA) {
      throw KeyError(KeyError::Key::rsa, "not a PEM RSA public key (-----BEGIN PUBLIC KEY-----)");
    }
    if (const int bits = EVP_PKEY_get_bits(rsa.get()); bits < kMinRsaBits) {
      throw KeyError(KeyError::Key::rsa,
                     "a " + std::to_string(bits) + "-bit RSA key; RS256 needs at least " +
                         std::to_string(kMinRsaBits) +
                         " bits (make one with: openssl genpkey -algorithm RSA -pkeyopt "
                         "rsa_keygen_bits:2048)");
    }
  }
  rsa_key_ = rsa.release();
  ecdsa_key_ = ecdsa.release();
}

TokenVerifier::~TokenVerifier() {
  EVP_PKEY_free(static_cast<EVP_PKEY*>(rsa_key_));
  EVP_PKEY_free(static_cast<EVP_PKEY*>(ecdsa_key_));
}

void TokenVerifier::set_jwks(std::shared_ptr<const Jwks> keys) {
  std::lock_guard lock(jwks_mu_);
  jwks_ = std::move(keys);
}

std::shared_ptr<const Jwks> TokenVerifier::jwks() const {
  std::lock_guard lock(jwks_mu_);
  return jwks_;
}

std::chrono::seconds wait_until_expiry(std::int64_t expires_at, std::int64_t now) {
  if (expires_at <= now) return std::chrono::seconds(0);
  // Both are seconds in int64 and now >= 0, so the difference cannot
  // overflow; the clamp keeps the timer's nanoseconds in range.
  const std::int64_t left = expires_at - now;
  return std::chrono::seconds(std::min<std::int64_t>(left, kLongestWait.count()));
}

std::optional<std::chrono::seconds> Claims::time_to_expiry(std::int64_t now) const {
  if (!expires_at) return std::nullopt;
  return wait_until_expiry(*expires_at, now);
}

bool Claims::allows(std::string_view room) const {
  if (!rooms) return true;
  for (const auto& pattern : *rooms)
    if (protocol::room_matches(pattern, room)) return true;
  return false;
}

std::string_view describe(TokenError e) {
  switch (e) {
    case TokenError::malformed:
      return "token is not a well-formed JWT";
    case TokenError::unsupported_alg:
      return "token alg is not HS256/384/512, RS256/384/512 or ES256/384 with a configured key";
    case TokenError::bad_signature:
      return "token signature does not verify";
    case TokenError::missing_subject:
      return "token has no sub claim";
    case TokenError::long_subject:
      static_assert(protocol::kMaxUserBytes == 64, "the message below states the bound");
      return "token sub is longer than a user name may be (64 bytes)";
    case TokenError::bad_claim:
      return "token has a claim of the wrong type";
    case TokenError::expired:
      return "token has expired";
    case TokenError::not_yet_valid:
      return "token is not valid yet (nbf)";
    case TokenError::wrong_audience:
      return "token is not for this server (aud)";
    case TokenError::wrong_issuer:
      return "token is not from the expected issuer (iss)";
    case TokenError::subscription_token:
      return "token has a channel claim: it is a subscription token, which opens no connection";
    case TokenError::missing_channel:
      return "subscription token has no channel claim";
    case TokenError::unknown_key:
      return "token kid names no key of the JWK set";
    case TokenError::key_pending:
      return "token kid names no key of the JWK set yet; the set is being fetched again from "
             "its URL: retry";
  }
  return "token error";
}

VerifyResult TokenVerifier::verify(std::string_view token, std::int64_t now, TokenUse use) const {
  auto dot1 = token.find('.');
  auto dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos)
    return TokenError::malformed;
  std::string_view signing_input = token.substr(0, dot2);
  auto header = base64url_decode(token.substr(0, dot1));
  auto payload = base64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = base64url_decode(token.substr(dot2 + 1));
  if (!header || !payload || !signature) return TokenError::malformed;

  // One parser per thread, reused: verification runs on every shard, and a
  // fresh parser would allocate its buffers on every connect.
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object h;
  if (parser.parse(*header).get(h) != simdjson::SUCCESS) return TokenError::malformed;
  std::string_view alg;
  if (h["alg"].get(alg) != simdjson::SUCCESS) return TokenError::unsupported_alg;
  const EVP_MD* md = alg_digest(alg);
  if (md == nullptr) return TokenError::unsupported_alg;
  std::string_view kid;
  const std::shared_ptr<const Jwks> set = jwks();
  std::optional<TokenError> refused;
  if ((set || wanted_) && h["kid"].get(kid) == simdjson::SUCCESS) {
    // The key the kid names, alone: no other key is tried (a set from a
    // URL may not have arrived yet).
    const Jwks::Key* key = set ? set->find(kid) : nullptr;
    if (key == nullptr && wanted_) {
      wanted_();
      return TokenError::key_pending;
    }
    if (key == nullptr) return TokenError::unknown_key;
    if (!key->alg.empty() && key->alg != alg) return TokenError::unsupported_alg;
    refused =
        check_public(alg, md, key->pkey.get(), key->rsa, key->bits, signing_input, *signature);
  } else if (alg.starts_with("HS") && !secret_.empty()) {
    std::string expected = hmac(md, secret_, signing_input);
    if (signature->size() != expected.size() ||
        CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0)
      return TokenError::bad_signature;
  } else if (alg.starts_with("RS") && rsa_key_ != nullptr) {
    refused =
        check_public(alg, md, static_cast<EVP_PKEY*>(rsa_key_), true, 0, signing_input, *signature);
  } else if (alg.starts_with("ES") && ecdsa_key_ != nullptr) {
    refused = check_public(alg, md, static_cast<EVP_PKEY*>(ecdsa_key_), false, ecdsa_bits_,
                           signing_input, *signature);
  } else {
    return TokenError::unsupported_alg;
  }
  if (refused) return *refused;

  // The parser reuses its buffer, so the header's views are dead from here.
  simdjson::dom::object p;
  if (parser.parse(*payload).get(p) != simdjson::SUCCESS) return TokenError::malformed;
  Claims claims;
  std::string_view sub;
  if (p["sub"].get(sub) != simdjson::SUCCESS || sub.empty()) return TokenError::missing_subject;
  // sub names the user, and every name of a user keeps one bound.
  if (!protocol::valid_user_name(sub)) return TokenError::long_subject;
  claims.user.assign(sub);
  simdjson::dom::element e;
  if (p["exp"].get(e) == simdjson::SUCCESS) {
    std::int64_t v = 0;
    if (e.get(v) != simdjson::SUCCESS) return TokenError::bad_claim;
    claims.expires_at = v;
  }
  if (p["nbf"].get(e) == simdjson::SUCCESS) {
    std::int64_t v = 0;
    if (e.get(v) != simdjson::SUCCESS) return TokenError::bad_claim;
    claims.not_before = v;
  }
  if (p["rooms"].get(e) == simdjson::SUCCESS) {
    simdjson::dom::array arr;
    if (e.get(arr) != simdjson::SUCCESS) return TokenError::bad_claim;
    claims.rooms.emplace();
    for (auto item : arr) {
      std::string_view r;
      if (item.get(r) != simdjson::SUCCESS) return TokenError::bad_claim;
      claims.rooms->emplace_back(r);
    }
  }
  // Server-side subscriptions: Herald's "subs" (an array), Centrifugo's
  // "subs" (an object keyed by channel, each with its options) and
  // "channels" (an array).
  auto add_sub = [&claims](std::string_view room) {
    if (protocol::room_name_error(room)) return false;
    if (std::find(claims.subs.begin(), claims.subs.end(), room) == claims.subs.end()) {
      claims.subs.emplace_back(room);
    }
    return true;
  };
  for (std::string_view field : {"subs", "channels"}) {
    if (p[field].get(e) != simdjson::SUCCESS) continue;
    simdjson::dom::array arr;
    simdjson::dom::object obj;
    if (e.get(arr) == simdjson::SUCCESS) {
      for (auto item : arr) {
        std::string_view room;
        if (item.get(room) != simdjson::SUCCESS || !add_sub(room)) return TokenError::bad_claim;
      }
    } else if (field == "subs" && e.get(obj) == simdjson::SUCCESS) {
      for (auto channel : obj) {
        if (!add_sub(channel.key)) return TokenError::bad_claim;
        simdjson::dom::object options;
        if (channel.value.get(options) != simdjson::SUCCESS) return TokenError::bad_claim;
        Claims::SubOptions o;
        if (json_or_base64(options, "info", o.info_json) == JsonField::bad ||
            json_or_base64(options, "data", o.data_json) == JsonField::bad ||
            !read_override(options, o.override)) {
          return TokenError::bad_claim;
        }
        if (o != Claims::SubOptions{}) claims.sub_options.emplace(channel.key, std::move(o));
      }
    } else {
      return TokenError::bad_claim;
    }
  }
  if (json_or_base64(p, "info", claims.info_json) == JsonField::bad ||
      json_or_base64(p, "data", claims.data_json) == JsonField::bad ||
      !read_override(p, claims.override)) {
    return TokenError::bad_claim;
  }
  if (p["meta"].get(e) == simdjson::SUCCESS) claims.meta_json = simdjson::minify(e);
  if (p["expire_at"].get(e) == simdjson::SUCCESS) {
    std::int64_t v = 0;
    if (e.get(v) != simdjson::SUCCESS || v < 0) return TokenError::bad_claim;
    claims.expire_at = v;
  }
  if (p["iss"].get(e) == simdjson::SUCCESS) {
    std::string_view iss;
    if (e.get(iss) != simdjson::SUCCESS) return TokenError::bad_claim;
    claims.issuer.emplace(iss);
  }
  if (p["aud"].get(e) == simdjson::SUCCESS) {
    // RFC 7519 4.1.3: one string, or an array of strings.
    std::string_view one;
    simdjson::dom::array arr;
    if (e.get(one) == simdjson::SUCCESS) {
      claims.audience.emplace_back(one);
    } else if (e.get(arr) == simdjson::SUCCESS) {
      for (auto item : arr) {
        if (item.get(one) != simdjson::SUCCESS) return TokenError::bad_claim;
        claims.audience.emplace_back(one);
      }
    } else {
      return TokenError::bad_claim;
    }
  }
  for (auto [field, out] : {std::pair{"channel", &claims.channel}, {"client", &claims.client}}) {
    if (p[field].get(e) != simdjson::SUCCESS) continue;
    std::string_view v;
    if (e.get(v) != simdjson::SUCCESS) return TokenError::bad_claim;
    out->assign(v);
  }
  if (use == TokenUse::connection && !claims.channel.empty()) {
    return TokenError::subscription_token;
  }
  if (use == TokenUse::subscription && claims.channel.empty()) return TokenError::missing_channel;
  if (!expected_.issuer.empty() && claims.issuer != expected_.issuer)
    return TokenError::wrong_issuer;
  if (!expected_.audience.empty() && std::find(claims.audience.begin(), claims.audience.end(),
                                               expected_.audience) == claims.audience.end())
    return TokenError::wrong_audience;
  if (expected_.issuer_pattern &&
      !(claims.issuer && expected_.issuer_pattern->matches(*claims.issuer)))
    return TokenError::wrong_issuer;
  if (expected_.audience_pattern &&
      std::none_of(claims.audience.begin(), claims.audience.end(), [&](const std::string& aud) {
        return expected_.audience_pattern->matches(aud);
      }))
    return TokenError::wrong_audience;
  if (claims.expires_at && *claims.expires_at <= now) return TokenError::expired;
  if (claims.not_before && *claims.not_before > now) return TokenError::not_yet_valid;
  return claims;
}

std::string sign_hs256(const Claims& claims, std::string_view secret) {
  return sign_hs256_payload(claims_json(claims), secret);
}

std::string sign_hs256_payload(std::string_view payload, std::string_view secret) {
  std::string input =
      base64url_encode(R"({"alg":"HS256","typ":"JWT"})") + "." + base64url_encode(payload);
  return input + "." + base64url_encode(hmac(EVP_sha256(), secret, input));
}

std::string sign_rs256(const Claims& claims, std::string_view private_key_pem) {
  OpensslPtr<BIO> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())));
  OpensslPtr<EVP_PKEY> key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                               : nullptr);
  OpensslPtr<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
  if (!key || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1)
    return {};
  std::string input = base64url_encode(R"({"alg":"RS256","typ":"JWT"})") + "." +
                      base64url_encode(claims_json(claims));
  std::size_t len = 0;
  // Safety: as in rsa_verify, byte ranges OpenSSL reads and writes.
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size()) != 1) return {};
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data,
                     input.size()) != 1)
    return {};
  sig.resize(len);
  return input + "." + base64url_encode(sig);
}

}  // namespace herald::gateway::auth
