// One DNSSEC signing key, read from the pair of files BIND's
// dnssec-keygen and ldns-keygen write:
//
//   K<zone>+<alg>+<tag>.key      one zone-file line:
//                                <zone> [TTL] IN DNSKEY <flags> 3 <alg> <base64 public key>
//   K<zone>+<alg>+<tag>.private  "Name: value" lines, of which three count:
//                                Private-key-format: v1.2 (or v1.3)
//                                Algorithm: 13 (ECDSAP256SHA256)   or 15 (ED25519)
//                                PrivateKey: <base64 of the secret>
//
// Only ECDSA P-256/SHA-256 (13, RFC 6605) and Ed25519 (15, RFC 8080): the
// two algorithms an online signer should use (small signatures, fast to
// make; RFC 8624 recommends them), and both have a 32-octet secret and a
// 64-octet signature. For ECDSA the secret is the scalar d (written
// without leading zero octets: one key in 256 has a 31-octet d) and the
// .key holds the point X | Y; for Ed25519 the secret is the seed and the
// .key the 32-octet public key. The public key is taken from the .key and then
// proved to belong to the secret (OpenSSL's pairwise check for ECDSA, the
// derived public key for Ed25519), so a .key and .private of different
// pairs are refused at load instead of signing answers no one can verify.
// The tag in the file name must be the DNSKEY's (RFC 4034 Appendix B).
//
// BIND's timing fields (Created, Publish, Activate, ...) are ignored: a key
// given is a key in use.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/openssl_ptr.hpp"
#include "core/result.hpp"
#include "dns/name.hpp"
#include "dns/zone_parser.hpp"

namespace herald::dns::signing {

inline constexpr std::uint8_t kEcdsaP256Sha256 = 13;
inline constexpr std::uint8_t kEd25519 = 15;

struct SigningKey {
  std::uint8_t algorithm = 0;  // kEcdsaP256Sha256 or kEd25519
  std::uint16_t flags = 0;     // 257: a key-signing key (SEP bit), 256: zone-signing
  std::uint16_t tag = 0;
  std::vector<std::uint8_t> dnskey;  // DNSKEY RDATA: flags | 3 | algorithm | public key
  OpensslPtr<EVP_PKEY> pkey;         // the key pair; only read after load
  std::string private_path;          // for messages

  bool sep() const noexcept { return (flags & 1) != 0; }
};

// What a private key file's name says: K<origin>+<alg>+<tag>.private
// (`base` without any directory); nullopt if it is not such a name.
struct KeyFileName {
  Name origin;
  unsigned algorithm = 0;
  unsigned tag = 0;
};
std::optional<KeyFileName> parse_key_file_name(std::string_view base);

// RFC 4034 Appendix B over a whole DNSKEY RDATA.
std::uint16_t key_tag(std::span<const std::uint8_t> dnskey_rdata) noexcept;

// Reads `private_path` (…/K<origin>+<alg>+<tag>.private) and the .key beside
// it as a key of the zone `origin`. An error names the file and line and
// says what to fix.
herald::Result<SigningKey, ZoneError> read_key_pair(const std::string& private_path,
                                                    const Name& origin);

}  // namespace herald::dns::signing
