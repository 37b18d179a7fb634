// Reading test messages by JSON pointer (RFC 6901), through simdjson.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace herald::test {

[[nodiscard]] bool json_valid(const std::string& text);
[[nodiscard]] bool json_has(const std::string& text, const std::string& pointer);
[[nodiscard]] std::optional<std::string> json_str(const std::string& text,
                                                  const std::string& pointer);
[[nodiscard]] std::optional<std::uint64_t> json_uint(const std::string& text,
                                                     const std::string& pointer);
[[nodiscard]] std::optional<bool> json_bool(const std::string& text, const std::string& pointer);
// The value at pointer, re-serialized compactly.
[[nodiscard]] std::optional<std::string> json_raw(const std::string& text,
                                                  const std::string& pointer);
// Array length at pointer.
[[nodiscard]] std::optional<std::size_t> json_size(const std::string& text,
                                                   const std::string& pointer);

}  // namespace herald::test
