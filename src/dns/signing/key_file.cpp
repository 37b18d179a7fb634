#include "dns/signing/key_file.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>

#include <array>
#include <fstream>
#include <optional>
#include <string_view>

#include "core/text.hpp"
#include "dns/detail/text_codecs.hpp"

namespace herald::dns::signing {
namespace {

constexpr std::string_view kPrivateSuffix = ".private";
constexpr std::size_t kSecretSize = 32;

ZoneError error_at(const std::string& file, std::size_t line, std::string message) {
  return ZoneError{file, line, 0, std::move(message)};
}

// The secret octets, wiped when they go out of scope.
struct Secret {
  std::vector<std::uint8_t> bytes;
  Secret() = default;
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  ~Secret() { OPENSSL_cleanse(bytes.data(), bytes.size()); }
};

struct PrivateFile {
  std::uint8_t algorithm = 0;
  std::size_t algorithm_line = 0;
  std::size_t key_line = 0;
};

// A decimal of at most `max`, through the zone parser's own decoder.
std::optional<unsigned> parse_number(std::string_view s, std::uint64_t max) {
  std::uint64_t v = 0;
  if (!detail::decimal_decode(s, max, false, v)) return std::nullopt;
  return static_cast<unsigned>(v);  // Safety: at most `max`, which fits
}

std::string_view algorithm_name(std::uint8_t a) {
  return a == kEcdsaP256Sha256 ? "ECDSAP256SHA256" : "ED25519";
}

// Checks the file name K<origin>+<alg>+<tag>.private against `origin`;
// returns the algorithm and tag it names.
herald::Result<std::pair<unsigned, unsigned>, ZoneError> parse_file_name(const std::string& path,
                                                                         const Name& origin) {
  const std::size_t slash = path.find_last_of('/');
  auto named = parse_key_file_name(
      std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1));
  if (!named) {
    return error_at(path, 0,
                    "a key file is named K<zone>+<algorithm>+<tag>.private (as ldns-keygen and "
                    "dnssec-keygen name it), e.g. K" +
                        origin.to_text() + "+013+12345.private");
  }
  if (!named->origin.iequals(origin)) {
    return error_at(path, 0,
                    "the key is for " + named->origin.to_text() +
                        " (its file name says so), not for " + origin.to_text());
  }
  return std::pair{named->algorithm, named->tag};
}

// Reads the three fields that count; the secret goes to `secret`.
herald::Result<PrivateFile, ZoneError> read_private(const std::string& path, Secret& secret) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error_at(path, 0, "cannot read the private key file");
  PrivateFile f;
  bool format = false;
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    std::string_view l = trim(line, " \t\r");
    const std::size_t colon = l.find(':');
    if (l.empty() || colon == std::string_view::npos) continue;
    const std::string_view key = l.substr(0, colon);
    const std::string_view value = trim(l.substr(colon + 1), " \t\r");
    if (key == "Private-key-format") {
      if (!value.starts_with("v1.")) {
        return error_at(path, n,
                        "Private-key-format " + std::string(value) +
                            ": only the v1.x format of BIND and ldns is read");
      }
      format = true;
    } else if (key == "Algorithm") {
      auto a = parse_number(value.substr(0, value.find(' ')), 255);
      if (!a || (*a != kEcdsaP256Sha256 && *a != kEd25519)) {
        return error_at(path, n,
                        "algorithm " + std::string(value) +
                            ": online signing takes 13 (ECDSAP256SHA256) or 15 (ED25519); make a "
                            "key with ldns-keygen -a ECDSAP256SHA256 <zone>");
      }
      f.algorithm = static_cast<std::uint8_t>(*a);  // Safety: 13 or 15, checked above
      f.algorithm_line = n;
    } else if (key == "PrivateKey") {
      secret.bytes.clear();
      if (!detail::base64_decode(value, secret.bytes)) {
        return error_at(path, n, "PrivateKey is not base64");
      }
      f.key_line = n;
    }
  }
  if (!format) return error_at(path, 1, "no Private-key-format line: not a BIND/ldns private key");
  if (f.algorithm_line == 0) return error_at(path, 1, "no Algorithm line");
  if (f.key_line == 0) return error_at(path, 1, "no PrivateKey line");
  // An Ed25519 secret is a 32-octet seed. An ECDSA one is the integer d,
  // which BIND and ldns write without its leading zero octets (one key in
  // 256 has 31 octets): shorter is the same number, longer is no P-256 key.
  const std::size_t size = secret.bytes.size();
  if (f.algorithm == kEd25519 ? size != kSecretSize : size == 0 || size > kSecretSize) {
    return error_at(path, f.key_line,
                    "PrivateKey holds " + std::to_string(size) + " octets; " +
                        (f.algorithm == kEd25519 ? "an Ed25519 secret is 32"
                                                 : "an ECDSA P-256 secret is at most 32"));
  }
  return f;
}

struct PublicFile {
  std::vector<std::uint8_t> dnskey;
  std::size_t line = 0;
};

herald::Result<PublicFile, ZoneError> read_public(const std::string& path, const Name& origin) {
  ZoneOptions opt;
  opt.origin = origin;
  opt.default_ttl = 3600;  // a .key may leave the TTL out
  ZoneResult parsed = parse_zone_file(path, opt);
  if (!parsed.ok()) {
    ZoneError e = parsed.errors.front();
    if (e.line == 0)
      e.message = "cannot read the public key file (" + path + ") beside the .private";
    return e;
  }
  PublicFile f;
  for (std::size_t i = 0; i < parsed.records.size(); ++i) {
    const Record& r = parsed.records[i];
    if (r.type != type::DNSKEY) continue;
    if (!f.dnskey.empty()) {
      return error_at(path, parsed.sources[i].line, "more than one DNSKEY; a .key holds one key");
    }
    if (!r.owner.iequals(origin)) {
      return error_at(
          path, parsed.sources[i].line,
          "the DNSKEY is owned by " + r.owner.to_text() + ", not the zone " + origin.to_text());
    }
    f.dnskey = r.rdata;
    f.line = parsed.sources[i].line;
  }
  if (f.dnskey.empty()) return error_at(path, 1, "no DNSKEY record");
  return f;
}

// The key pair from the secret and the public key of the .key, or the
// reason they do not make one.
herald::Result<OpensslPtr<EVP_PKEY>, std::string> make_pkey(std::uint8_t algorithm,
                                                            const Secret& secret,
                                                            std::span<const std::uint8_t> pub) {
  if (algorithm == kEd25519) {
    if (pub.size() != 32) return Fail{std::string("an Ed25519 public key is 32 octets")};
    OpensslPtr<EVP_PKEY> k(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                                        secret.bytes.data(), secret.bytes.size()));
    std::array<std::uint8_t, 32> derived{};
    std::size_t len = derived.size();
    if (!k || EVP_PKEY_get_raw_public_key(k.get(), derived.data(), &len) != 1 || len != 32) {
      return Fail{std::string("OpenSSL did not take the Ed25519 secret")};
    }
    if (!std::equal(derived.begin(), derived.end(), pub.begin())) {
      return Fail{std::string("the public key in the .key is not the private key's")};
    }
    return k;
  }
  if (pub.size() != 64) return Fail{std::string("an ECDSA P-256 public key is 64 octets (X | Y)")};
  // OpenSSL wants the point uncompressed: 0x04 | X | Y (SEC 1 §2.3.3).
  std::array<std::uint8_t, 65> point{};
  point[0] = 0x04;
  std::copy(pub.begin(), pub.end(), point.begin() + 1);
  OpensslPtr<BIGNUM> d(
      BN_bin2bn(secret.bytes.data(), static_cast<int>(secret.bytes.size()), nullptr));
  OpensslPtr<OSSL_PARAM_BLD> bld(OSSL_PARAM_BLD_new());
  if (!d || !bld ||
      OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, d.get()) != 1 ||
      OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    return Fail{std::string("OpenSSL could not hold the ECDSA key")};
  }
  OpensslPtr<OSSL_PARAM> params(OSSL_PARAM_BLD_to_param(bld.get()));
  OpensslPtr<EVP_PKEY_CTX> ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_KEYPAIR, params.get()) != 1) {
    return Fail{std::string("the public key in the .key is not a P-256 point")};
  }
  OpensslPtr<EVP_PKEY> k(raw);
  OpensslPtr<EVP_PKEY_CTX> check(EVP_PKEY_CTX_new_from_pkey(nullptr, k.get(), nullptr));
  if (!check || EVP_PKEY_pairwise_check(check.get()) != 1) {
    return Fail{std::string("the public key in the .key is not the private key's")};
  }
  return k;
}

}  // namespace

std::optional<KeyFileName> parse_key_file_name(std::string_view base) {
  if (!base.ends_with(kPrivateSuffix) || !base.starts_with('K')) return std::nullopt;
  base.remove_suffix(kPrivateSuffix.size());
  base.remove_prefix(1);
  // The origin ends at the second '+' from the right (a zone name may
  // itself hold a '+').
  const std::size_t tag_plus = base.rfind('+');
  if (tag_plus == std::string_view::npos || tag_plus == 0) return std::nullopt;
  const std::size_t alg_plus = base.rfind('+', tag_plus - 1);
  if (alg_plus == std::string_view::npos) return std::nullopt;
  auto alg = parse_number(base.substr(alg_plus + 1, tag_plus - alg_plus - 1), 255);
  auto tag = parse_number(base.substr(tag_plus + 1), 0xFFFF);
  auto name = Name::from_text(base.substr(0, alg_plus));
  if (!alg || !tag || !name) return std::nullopt;
  return KeyFileName{*name, *alg, *tag};
}

std::uint16_t key_tag(std::span<const std::uint8_t> dnskey_rdata) noexcept {
  std::uint32_t ac = 0;
  for (std::size_t i = 0; i < dnskey_rdata.size(); ++i) {
    ac += (i & 1) != 0 ? dnskey_rdata[i] : static_cast<std::uint32_t>(dnskey_rdata[i]) << 8;
  }
  ac += (ac >> 16) & 0xFFFF;
  return static_cast<std::uint16_t>(ac & 0xFFFF);  // Safety: the RFC keeps the low 16 bits
}

herald::Result<SigningKey, ZoneError> read_key_pair(const std::string& private_path,
                                                    const Name& origin) {
  auto named = parse_file_name(private_path, origin);
  if (!named) return named.error();
  Secret secret;
  auto priv = read_private(private_path, secret);
  if (!priv) return priv.error();
  if (named->first != priv->algorithm) {
    return error_at(private_path, priv->algorithm_line,
                    "the Algorithm line says " + std::to_string(priv->algorithm) +
                        ", the file name " + std::to_string(named->first));
  }
  const std::string key_path =
      private_path.substr(0, private_path.size() - kPrivateSuffix.size()) + ".key";
  auto pub = read_public(key_path, origin);
  if (!pub) return pub.error();
  const std::vector<std::uint8_t>& rd = pub->dnskey;
  // DNSKEY RDATA: flags (16) | protocol (8) | algorithm (8) | public key.
  const std::uint16_t flags = static_cast<std::uint16_t>(rd[0] << 8 | rd[1]);
  if ((flags & 0x0100) == 0 || rd[2] != 3) {
    return error_at(key_path, pub->line,
                    "not a zone key (flags 256 or 257, protocol 3, as RFC 4034 §2.1.1 requires)");
  }
  if (rd[3] != priv->algorithm) {
    return error_at(key_path, pub->line,
                    "the DNSKEY's algorithm is " + std::to_string(rd[3]) + ", the .private's " +
                        std::to_string(priv->algorithm) + " (" +
                        std::string(algorithm_name(priv->algorithm)) + ")");
  }
  auto pkey = make_pkey(priv->algorithm, secret, std::span(rd).subspan(4));
  if (!pkey) return error_at(key_path, pub->line, pkey.error());
  SigningKey k;
  k.algorithm = priv->algorithm;
  k.flags = flags;
  k.tag = key_tag(rd);
  if (k.tag != named->second) {
    return error_at(key_path, pub->line,
                    "the key's tag is " + std::to_string(k.tag) + ", the file name says " +
                        std::to_string(named->second) + ": the files were renamed or mixed up");
  }
  k.dnskey = std::move(pub->dnskey);
  k.pkey = std::move(*pkey);
  k.private_path = private_path;
  return k;
}

}  // namespace herald::dns::signing
