#include "gateway/ws/deflate_offer.hpp"

#include <cstddef>
#include <vector>

#include "core/text.hpp"

namespace herald::gateway::ws {
namespace {

constexpr std::string_view kExtension = "permessage-deflate";
constexpr std::string_view kServerNoTakeover = "server_no_context_takeover";
constexpr std::string_view kClientNoTakeover = "client_no_context_takeover";
constexpr std::string_view kServerWindow = "server_max_window_bits";
constexpr std::string_view kClientWindow = "client_max_window_bits";
// The window our compressed bytes use (ws/deflate_codec.hpp).
constexpr int kOurWindowBits = 15;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Splits `s` at each `sep` outside a quoted string (a backslash escapes the
// next character inside one).
std::vector<std::string_view> split_outside_quotes(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (quoted && s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      quoted = !quoted;
    } else if (!quoted && s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

// A parameter's value with its quotes and escapes removed; nothing when a
// quoted string is not closed.
std::optional<std::string> unquote(std::string_view v) {
  if (v.empty() || v.front() != '"') return std::string(v);
  if (v.size() < 2 || v.back() != '"') return std::nullopt;
  std::string out;
  for (std::size_t i = 1; i + 1 < v.size(); ++i) {
    if (v[i] == '\\' && i + 2 < v.size()) ++i;
    out += v[i];
  }
  return out;
}

// 8..15 written as one or two decimal digits; 0 otherwise.
int window_bits(std::string_view v) {
  if (v.empty() || v.size() > 2) return 0;
  int n = 0;
  for (const char c : v) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n >= 8 && n <= 15 ? n : 0;
}

// The response for one offer's parameters, or nothing to decline it.
std::optional<std::string> answer(const std::vector<std::string_view>& params) {
  bool seen_server_no = false;
  bool seen_client_no = false;
  bool seen_client_window = false;
  std::optional<int> server_window;
  for (std::size_t i = 1; i < params.size(); ++i) {
    const std::string_view param = trim(params[i]);
    const std::size_t eq = param.find('=');
    const std::string_view name = trim(param.substr(0, eq));
    std::optional<std::string> value;
    if (eq != std::string_view::npos) {
      value = unquote(trim(param.substr(eq + 1)));
      if (!value) return std::nullopt;
    }
    if (iequals(name, kServerNoTakeover) || iequals(name, kClientNoTakeover)) {
      bool& seen = iequals(name, kServerNoTakeover) ? seen_server_no : seen_client_no;
      if (seen || value) return std::nullopt;
      seen = true;
    } else if (iequals(name, kServerWindow)) {
      if (server_window || !value) return std::nullopt;
      const int bits = window_bits(*value);
      if (bits == 0) return std::nullopt;
      server_window = bits;
    } else if (iequals(name, kClientWindow)) {
      if (seen_client_window) return std::nullopt;
      if (value && window_bits(*value) == 0) return std::nullopt;
      seen_client_window = true;
    } else {
      return std::nullopt;  // a parameter we do not know
    }
  }
  // Our compressed bytes need the full window: a smaller one cannot be
  // promised, so this offer is declined.
  if (server_window && *server_window < kOurWindowBits) return std::nullopt;
  std::string response(kExtension);
  response += "; ";
  response += kServerNoTakeover;
  response += "; ";
  response += kClientNoTakeover;
  if (server_window) response += "; server_max_window_bits=15";
  return response;
}

}  // namespace

std::optional<std::string> negotiate_permessage_deflate(std::string_view offers) {
  for (const std::string_view offer : split_outside_quotes(offers, ',')) {
    const std::vector<std::string_view> params = split_outside_quotes(offer, ';');
    if (!iequals(trim(params.front()), kExtension)) continue;
    if (std::optional<std::string> response = answer(params)) return response;
  }
  return std::nullopt;
}

}  // namespace herald::gateway::ws
