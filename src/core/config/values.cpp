#include "core/config/values.hpp"

#include <array>
#include <charconv>
#include <limits>

#include "core/text.hpp"

namespace herald::config {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

// Parses a leading unsigned decimal; advances text past it.
std::optional<std::uint64_t> take_number(std::string_view& text) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return v;
}

}  // namespace

std::string Endpoint::to_string() const {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::optional<Endpoint> parse_endpoint(std::string_view text) {
  Endpoint ep;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return std::nullopt;
    ep.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    ep.host = std::string(text.substr(0, colon));
    if (ep.host.find(':') != std::string::npos) return std::nullopt;  // IPv6 needs []
    port_text = text.substr(colon + 1);
  }
  if (ep.host.empty() || port_text.empty()) return std::nullopt;
  auto port = take_number(port_text);
  if (!port || !port_text.empty() || *port > 65535) return std::nullopt;
  ep.port = static_cast<std::uint16_t>(*port);
  return ep;
}

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  using std::chrono::milliseconds;
  if (text == "0") return milliseconds(0);
  if (text.empty()) return std::nullopt;
  std::uint64_t total = 0;
  while (!text.empty()) {
    auto n = take_number(text);
    if (!n) return std::nullopt;
    std::uint64_t unit = 0;
    if (text.starts_with("ms")) {
      unit = 1, text.remove_prefix(2);
    } else if (text.starts_with("s")) {
      unit = 1000, text.remove_prefix(1);
    } else if (text.starts_with("m")) {
      unit = 60'000, text.remove_prefix(1);
    } else if (text.starts_with("h")) {
      unit = 3'600'000, text.remove_prefix(1);
    } else {
      return std::nullopt;  // a unit is required: "10" is ambiguous
    }
    if (*n > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    total += *n * unit;
    if (total > std::uint64_t{365} * 24 * 3'600'000) return std::nullopt;
  }
  return milliseconds(static_cast<std::int64_t>(total));
}

std::string format_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms == 0) return "0s";
  if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  auto n = take_number(text);
  if (!n) return std::nullopt;
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 8> kUnits{{
      {"", 1},
      {"B", 1},
      {"KiB", 1ull << 10},
      {"MiB", 1ull << 20},
      {"GiB", 1ull << 30},
      {"KB", 1000},
      {"MB", 1000'000},
      {"GB", 1000'000'000},
  }};
  for (const auto& [suffix, mul] : kUnits) {
    if (text == suffix) {
      if (*n > std::numeric_limits<std::uint64_t>::max() / mul) return std::nullopt;
      return *n * mul;
    }
  }
  return std::nullopt;
}

std::string format_size(std::uint64_t bytes) {
  if (bytes != 0 && bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + "GiB";
  if (bytes != 0 && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes != 0 && bytes % (1ull << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes);
}

std::optional<bool> parse_bool(std::string_view text) {
  for (auto t : {"true", "yes", "on", "1"})
    if (iequals(text, t)) return true;
  for (auto f : {"false", "no", "off", "0"})
    if (iequals(text, f)) return false;
  return std::nullopt;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split_list(std::string_view text) {
  std::vector<std::string_view> items;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

}  // namespace herald::config
