#include "gateway/http/query.hpp"

#include <optional>

namespace herald::gateway::http {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes one key or value; nullopt on a broken %XX.
std::optional<std::string> decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      const int hi = i + 1 < text.size() ? hex_digit(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) return std::nullopt;
      // Safety: hi * 16 + lo is a byte value, 0..255.
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::variant<QueryParams, std::string> parse_query(std::string_view target) {
  QueryParams params;
  const std::size_t q = target.find('?');
  if (q == std::string_view::npos) return params;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const std::size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    auto key = decode(pair.substr(0, eq));
    auto value = decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    if (!key || !value) {
      return "query parameter '" + std::string(pair) + "' has a '%' not followed by two hex digits";
    }
    params.emplace_back(std::move(*key), std::move(*value));
  }
  return params;
}

std::vector<std::string> query_values(const QueryParams& params, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& [k, v] : params) {
    if (k == key) out.push_back(v);
  }
  return out;
}

std::string query_value(const QueryParams& params, std::string_view key) {
  for (const auto& [k, v] : params) {
    if (k == key) return v;
  }
  return {};
}

}  // namespace herald::gateway::http
