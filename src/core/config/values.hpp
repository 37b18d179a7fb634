// Parsers for the value types configuration uses, from text (environment
// variables and flags) and from TOML scalars. Each returns nullopt on bad
// input; the caller names the key and the expected form in its error.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace herald::config {

// host:port, host is an IPv4 address, "[IPv6]" or a name ("localhost").
// Port 0 asks the kernel for a free one.
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

[[nodiscard]] std::optional<Endpoint> parse_endpoint(std::string_view text);

// "250ms", "10s", "5m", "1h", "1m30s"; a bare "0" is zero. No negative values.
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);
[[nodiscard]] std::string format_duration(std::chrono::milliseconds d);

// Byte sizes: "512", "64KiB", "1MiB", "2GiB", also "64KB"/"1MB" (powers of 1000)
[[nodiscard]] std::optional<std::uint64_t> parse_size(std::string_view text);
[[nodiscard]] std::string format_size(std::uint64_t bytes);

// true/false/yes/no/on/off/1/0, case-insensitive.
[[nodiscard]] std::optional<bool> parse_bool(std::string_view text);
[[nodiscard]] std::optional<std::int64_t> parse_int(std::string_view text);

// The items of a "list" value ("a, b,c"): split on commas, spaces and tabs
// trimmed from each, empty items skipped. Views into `text`. Each caller
// parses (and names in its errors) the items themselves.
[[nodiscard]] std::vector<std::string_view> split_list(std::string_view text);

}  // namespace herald::config
