// Reading the few fields the load generator needs straight out of the
// server's messages, without a JSON parser: the bench must cost less per
// message than the server it measures. Every server it talks to (heraldd
// and the reference) writes these messages in the same fixed shape.
#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace herald::bench {

// The unsigned integer after the first occurrence of `key` (e.g. "\"offset\":")
// at or after `from`; sets `end` to where it stopped.
inline std::optional<std::uint64_t> uint_after(std::string_view s, std::string_view key,
                                               std::size_t from = 0, std::size_t* end = nullptr) {
  auto p = s.find(key, from);
  if (p == std::string_view::npos) return std::nullopt;
  p += key.size();
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data() + p, s.data() + s.size(), v);
  if (ec != std::errc()) return std::nullopt;
  if (end) *end = static_cast<std::size_t>(ptr - s.data());
  return v;
}

// The string value after the first `key` (e.g. "\"epoch\":\"") at or after
// `from`, up to the next quote; sets `end` to that quote.
inline std::optional<std::string_view> string_after(std::string_view s, std::string_view key,
                                                    std::size_t from = 0,
                                                    std::size_t* end = nullptr) {
  auto p = s.find(key, from);
  if (p == std::string_view::npos) return std::nullopt;
  p += key.size();
  auto q = s.find('"', p);
  if (q == std::string_view::npos) return std::nullopt;
  if (end) *end = q;
  return s.substr(p, q - p);
}

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace herald::bench
