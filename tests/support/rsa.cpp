#include "support/rsa.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>

namespace herald::test {

std::pair<std::string, std::string> rsa_key_pair(unsigned bits) {
  EVP_PKEY* key = EVP_RSA_gen(bits);
  auto pem = [](auto write) {
    BIO* bio = BIO_new(BIO_s_mem());
    write(bio);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    return out;
  };
  std::string priv =
      pem([&](BIO* b) { PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr); });
  std::string pub = pem([&](BIO* b) { PEM_write_bio_PUBKEY(b, key); });
  EVP_PKEY_free(key);
  return {priv, pub};
}

}  // namespace herald::test
