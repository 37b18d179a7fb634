#include "redis/script.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace herald::redis {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::string, std::less<>> text_by_sha;
};

// Function-local: scripts are namespace-scope constants of other
// translation units, constructed in an unspecified order.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

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

Script::Script(std::string text) : text_(std::move(text)), sha_(sha1_hex(text_)) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.text_by_sha.emplace(sha_, text_);
}

std::optional<std::string> Script::find(std::string_view sha) {
  std::string key(sha);
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'F' ? c + 32 : c);
  });
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.text_by_sha.find(key);
  if (it == r.text_by_sha.end()) return std::nullopt;
  return it->second;
}

}  // namespace herald::redis
