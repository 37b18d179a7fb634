// A JSON Web Key Set (RFC 7517): the public keys an identity provider signs
// tokens with, each named by its key id (kid). Centrifugo reads one from a
// URL (client.token.jwks_public_endpoint); Herald from a file
// (auth.jwks_file). A token whose header names a kid is verified with that
// key alone (token.hpp), so a provider can rotate keys by publishing the
// new one beside the old.
//
// The set is read once into OpenSSL keys (EVP_PKEY_fromdata from the JWK's
// base64url numbers), so verifying a token parses nothing but the token.
// Kept: RSA keys ("kty":"RSA", n and e) of at least kMinRsaBits, and EC
// keys on P-256 or P-384 ("kty":"EC", crv, x and y). Left out, each with a
// reason the caller may log (RFC 7517 5: a set's members whose type is not
// understood are ignored): other key types (oct, OKP), other curves, keys
// whose "use" is not "sig", keys without a kid (a token could not name
// them). A key of a kept type that is broken (an n that is not base64url,
// a point not on its curve), a repeated kid, or a set with no usable key
// is refused with what and where: a set that half-loads would refuse
// tokens its provider signed.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/openssl_ptr.hpp"

namespace herald::gateway::auth {

class Jwks {
 public:
  struct Key {
    std::string alg;   // the JWK's "alg", empty when it has none
    bool rsa = false;  // else EC
    int bits = 0;      // the RSA modulus's bits, or 256 / 384 for EC
    OpensslPtr<EVP_PKEY> pkey;
  };

  // Throws std::invalid_argument saying what is wrong and where ("keys[2]
  // (kid 'k2'): ..."); `skipped` (when given) gets a line per key left out.
  [[nodiscard]] static Jwks parse(std::string_view json,
                                  std::vector<std::string>* skipped = nullptr);

  // The key named `kid`, or null.
  [[nodiscard]] const Key* find(std::string_view kid) const;
  [[nodiscard]] std::size_t size() const { return keys_.size(); }

 private:
  std::map<std::string, Key, std::less<>> keys_;
};

}  // namespace herald::gateway::auth
