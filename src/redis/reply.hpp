// A Redis reply as a plain value. hiredis frees its redisReply as soon as the
// reply callback returns, so every reply that outlives its callback is
// copied into a Reply first (from_hiredis). hiredis's reader parses RESP;
// nothing here parses protocol bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct redisReply;

namespace herald::redis {

struct Reply {
  enum class Type : std::uint8_t { nil, integer, string, status, error, array };
  Type type = Type::nil;
  std::int64_t integer = 0;
  std::string str;  // string, status and error replies
  std::vector<Reply> elements;

  [[nodiscard]] bool is_error() const { return type == Type::error; }
  [[nodiscard]] bool is_nil() const { return type == Type::nil; }
  // "integer 3", "error ERR unknown command", for error messages.
  [[nodiscard]] std::string describe() const;
};

// Deep copy of a hiredis reply; a null pointer becomes a nil Reply.
[[nodiscard]] Reply from_hiredis(const redisReply* r);

}  // namespace herald::redis
