// A Lua script sent by its SHA1 (EVALSHA) instead of its text (EVAL).
//
// Redis hashes the whole text of every EVAL to find the compiled script in
// its cache; EVALSHA names the cached script directly and sends 40 bytes
// instead of the text. The cache belongs to one Redis server and is empty
// after a restart, a failover to a replica that never saw the script, or
// SCRIPT FLUSH. A Client loads the scripts of its Options on every connect
// before it is ready (client.hpp says why that, and not an EVAL after each
// NOSCRIPT, keeps a connection's commands in order).
//
// Scripts are meant to be constants (namespace-scope objects) that outlive
// every client that loads them.
#pragma once

#include <string>
#include <string_view>

namespace herald::redis {

class Script {
 public:
  explicit Script(std::string text);

  [[nodiscard]] const std::string& text() const { return text_; }
  // Lowercase hex, as SCRIPT LOAD returns it.
  [[nodiscard]] const std::string& sha() const { return sha_; }

 private:
  std::string text_;
  std::string sha_;
};

// SHA1 of `data` in lowercase hex (OpenSSL).
[[nodiscard]] std::string sha1_hex(std::string_view data);

}  // namespace herald::redis
