#include "redis/script.hpp"

#include <openssl/sha.h>

namespace herald::redis {

std::string sha1_hex(std::string_view data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  // Safety: SHA1 reads data.size() bytes from data.data() and writes
  // exactly SHA_DIGEST_LENGTH bytes to digest.
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * SHA_DIGEST_LENGTH);
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

Script::Script(std::string text) : text_(std::move(text)), sha_(sha1_hex(text_)) {}

}  // namespace herald::redis
