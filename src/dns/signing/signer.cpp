#include "dns/signing/signer.hpp"

#include <openssl/ec.h>

#include <array>
#include <stdexcept>

namespace herald::dns::signing {

Signer::Signer() : ctx_(EVP_MD_CTX_new()), sha256_(EVP_MD_fetch(nullptr, "SHA256", nullptr)) {
  if (!ctx_ || !sha256_) throw std::runtime_error("OpenSSL: no SHA-256 digest context");
}

bool Signer::sign(const SigningKey& key, std::span<const std::uint8_t> data,
                  std::span<std::uint8_t, kSignatureSize> out) {
  if (EVP_MD_CTX_reset(ctx_.get()) != 1) return false;
  // Ed25519 hashes inside the algorithm: no digest is named (RFC 8080 §4).
  const EVP_MD* md = key.algorithm == kEd25519 ? nullptr : sha256_.get();
  if (EVP_DigestSignInit(ctx_.get(), nullptr, md, nullptr, key.pkey.get()) != 1) return false;
  if (key.algorithm == kEd25519) {
    std::size_t len = out.size();
    return EVP_DigestSign(ctx_.get(), out.data(), &len, data.data(), data.size()) == 1 &&
           len == kSignatureSize;
  }
  // An ECDSA-Sig-Value of two 33-octet INTEGERs is 72 octets.
  std::array<std::uint8_t, 80> der{};
  std::size_t len = der.size();
  if (EVP_DigestSign(ctx_.get(), der.data(), &len, data.data(), data.size()) != 1) return false;
  return der_to_raw_p256(std::span(der).first(len), out);
}

bool der_to_raw_p256(std::span<const std::uint8_t> der,
                     std::span<std::uint8_t, kSignatureSize> out) {
  const unsigned char* p = der.data();
  // d2i reads at most `der.size()` octets and checks the encoding itself.
  OpensslPtr<ECDSA_SIG> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (!sig || p != der.data() + der.size()) return false;
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  // BN_bn2binpad refuses (returns -1) an integer longer than 32 octets
  // rather than truncating it.
  return BN_bn2binpad(r, out.data(), 32) == 32 && BN_bn2binpad(s, out.data() + 32, 32) == 32;
}

}  // namespace herald::dns::signing
