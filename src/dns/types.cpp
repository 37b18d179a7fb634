#include "dns/types.hpp"

#include <charconv>

#include "dns/detail/rdata_schema.hpp"

namespace herald::dns {
namespace {

// Parses the decimal digits after a TYPE / CLASS prefix (RFC 3597 §5).
std::optional<std::uint16_t> numeric_suffix(std::string_view s, std::string_view prefix) {
  if (s.size() <= prefix.size()) return std::nullopt;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (c != prefix[i]) return std::nullopt;
  }
  std::string_view digits = s.substr(prefix.size());
  unsigned v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc{} || ptr != digits.data() + digits.size() || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

}  // namespace

std::string type_to_text(RRType t) {
  if (const auto* d = detail::find_descriptor(t)) return std::string(d->mnemonic);
  return "TYPE" + std::to_string(t.value);
}

std::optional<RRType> type_from_text(std::string_view s) {
  if (const auto* d = detail::find_descriptor(s)) return RRType{d->type};
  if (auto v = numeric_suffix(s, "TYPE")) return RRType{*v};
  return std::nullopt;
}

std::string class_to_text(RRClass c) {
  switch (c.value) {
    case 1:
      return "IN";
    case 3:
      return "CH";
    case 4:
      return "HS";
    case 254:
      return "NONE";
    case 255:
      return "ANY";
    default:
      return "CLASS" + std::to_string(c.value);
  }
}

std::optional<RRClass> class_from_text(std::string_view s) {
  std::string u(s);
  for (char& c : u) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  if (u == "IN") return rrclass::IN;
  if (u == "CH" || u == "CHAOS") return rrclass::CH;
  if (u == "HS") return rrclass::HS;
  if (u == "NONE") return rrclass::NONE;
  if (u == "ANY") return rrclass::ANY;
  if (auto v = numeric_suffix(s, "CLASS")) return RRClass{*v};
  return std::nullopt;
}

}  // namespace herald::dns
