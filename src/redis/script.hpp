// A Lua script sent by its SHA1 (EVALSHA) instead of its text (EVAL).
//
// Redis hashes the whole text of every EVAL to find the compiled script in
// its cache; EVALSHA names the cached script directly and sends 40 bytes
// instead of the text. The cache belongs to one Redis server and is empty
// after a restart or SCRIPT FLUSH, when EVALSHA answers NOSCRIPT. The
// Client (client.hpp) then sends that command again as EVAL with the text,
// which runs it and loads it, so later EVALSHAs hit: a second round trip
// only for the first call of a script on a server that lost its cache.
//
// Every Script registers its text under its SHA1 when constructed, so the
// client can find the text from an EVALSHA command alone. Scripts are
// meant to be constants (namespace-scope objects): registration takes a
// lock, lookups (on NOSCRIPT only) too.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace herald::redis {

class Script {
 public:
  explicit Script(std::string text);

  [[nodiscard]] const std::string& text() const { return text_; }
  // Lowercase hex, as SCRIPT LOAD returns it.
  [[nodiscard]] const std::string& sha() const { return sha_; }

  // The text of a registered script, by SHA1 (any case); nullopt if none.
  [[nodiscard]] static std::optional<std::string> find(std::string_view sha);

 private:
  std::string text_;
  std::string sha_;
};

// SHA1 of `data` in lowercase hex (OpenSSL).
[[nodiscard]] std::string sha1_hex(std::string_view data);

}  // namespace herald::redis
