#include "gateway/auth/base64.hpp"

#include <algorithm>
#include <cstdint>

namespace herald::gateway::auth {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  auto byte = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (bytes.size() - i == 1) {
    std::uint32_t v = byte(i) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
  } else if (bytes.size() - i == 2) {
    std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    auto pos = kAlphabet.find(c);
    if (pos == std::string_view::npos) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  // Leftover bits must be zero padding, or the encoding was not canonical.
  if ((acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  // Standard base64 read as base64url: the padding dropped, the two
  // characters that differ swapped.
  std::string url(text.substr(0, text.find_last_not_of('=') + 1));
  std::replace(url.begin(), url.end(), '+', '-');
  std::replace(url.begin(), url.end(), '/', '_');
  return base64url_decode(url);
}

JsonField json_or_base64(simdjson::dom::object obj, std::string_view field, std::string& out) {
  simdjson::dom::element e;
  if (obj[field].get(e) == simdjson::SUCCESS) {
    out = simdjson::minify(e);
    return JsonField::read;
  }
  if (obj["b64" + std::string(field)].get(e) != simdjson::SUCCESS) return JsonField::absent;
  std::string_view b64;
  if (e.get(b64) != simdjson::SUCCESS) return JsonField::bad;
  auto raw = base64_decode(b64);
  // Its own parser: `obj` points into the caller's, which is still read.
  simdjson::dom::parser parser;
  simdjson::dom::element value;
  if (!raw || parser.parse(*raw).get(value) != simdjson::SUCCESS) return JsonField::bad;
  out = simdjson::minify(value);
  return JsonField::read;
}

}  // namespace herald::gateway::auth
