// Makes DNSSEC signatures with OpenSSL: ECDSA P-256 with SHA-256
// (algorithm 13) and Ed25519 (15), both 64 octets on the wire.
//
// ECDSA: OpenSSL returns the DER ECDSA-Sig-Value (SEQUENCE of two
// INTEGERs, 70 to 72 octets); DNSSEC carries r | s, each a 32-octet
// big-endian integer, zero-padded (RFC 6605 §4), so the DER is converted.
// The nonce comes from OpenSSL's random generator (RFC 6979's deterministic
// nonces need OpenSSL 3.2, newer than Debian 12's), so two signatures of
// the same data differ; validators do not care, tests verify rather than
// compare. Ed25519 is PureEdDSA over the data (RFC 8080 §4, no prehash) and
// deterministic, so RFC 8080's example reproduces byte for byte.
//
// One Signer per shard: it keeps its digest context between signatures, so
// it is not thread-safe; the keys it signs with are shared read-only.
#pragma once

#include <cstdint>
#include <span>

#include "core/openssl_ptr.hpp"
#include "dns/signing/key_file.hpp"

namespace herald::dns::signing {

inline constexpr std::size_t kSignatureSize = 64;

class Signer {
 public:
  Signer();  // throws std::runtime_error if OpenSSL cannot make its contexts

  // The signature of `data` under `key`, into `out`. False if OpenSSL fails
  // (the caller answers SERVFAIL rather than send an unsigned answer to a
  // query that asked for signatures).
  [[nodiscard]] bool sign(const SigningKey& key, std::span<const std::uint8_t> data,
                          std::span<std::uint8_t, kSignatureSize> out);

 private:
  OpensslPtr<EVP_MD_CTX> ctx_;
  OpensslPtr<EVP_MD> sha256_;
};

// DER ECDSA-Sig-Value -> r | s, 32 octets each. False if the DER does not
// parse or an integer needs more than 32 octets.
[[nodiscard]] bool der_to_raw_p256(std::span<const std::uint8_t> der,
                                   std::span<std::uint8_t, kSignatureSize> out);

}  // namespace herald::dns::signing
