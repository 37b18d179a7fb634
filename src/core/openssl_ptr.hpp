// Owning pointers to OpenSSL objects: std::unique_ptr with the library's
// own free function as the deleter, so an early return cannot leak a key or
// a context.
//
//   OpensslPtr<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
//   OpensslPtr<EVP_PKEY> key(PEM_read_bio_PrivateKey(...));
//
// One deleter per type, chosen by overload, so a pointer can only be freed
// by the function OpenSSL pairs with its type. Header-only, OpenSSL only
// (herald::openssl_ptr): the gateway's token code and the DNS signer share
// it without the DNS engine linking the rest of core.
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>

namespace herald {

struct OpensslFree {
  void operator()(BIO* p) const noexcept { BIO_free(p); }
  void operator()(BIGNUM* p) const noexcept { BN_free(p); }
  void operator()(ECDSA_SIG* p) const noexcept { ECDSA_SIG_free(p); }
  void operator()(EVP_MD* p) const noexcept { EVP_MD_free(p); }
  void operator()(EVP_MD_CTX* p) const noexcept { EVP_MD_CTX_free(p); }
  void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
  void operator()(EVP_PKEY_CTX* p) const noexcept { EVP_PKEY_CTX_free(p); }
  void operator()(OSSL_PARAM* p) const noexcept { OSSL_PARAM_free(p); }
  void operator()(OSSL_PARAM_BLD* p) const noexcept { OSSL_PARAM_BLD_free(p); }
};

template <class T>
using OpensslPtr = std::unique_ptr<T, OpensslFree>;

}  // namespace herald
