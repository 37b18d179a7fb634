#include "dns/detail/zone_generate.hpp"

#include <charconv>

namespace herald::dns::detail {
namespace {

bool number(std::string_view s, std::int64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && p == s.data() + s.size();
}

}  // namespace

std::optional<GenerateRange> parse_generate_range(std::string_view s) {
  GenerateRange r;
  std::size_t dash = s.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::size_t slash = s.find('/', dash);
  std::int64_t a, b, step = 1;
  if (!number(s.substr(0, dash), a)) return std::nullopt;
  if (!number(s.substr(dash + 1, slash == std::string_view::npos ? s.npos : slash - dash - 1), b))
    return std::nullopt;
  if (slash != std::string_view::npos && !number(s.substr(slash + 1), step)) return std::nullopt;
  if (a < 0 || b < a || step < 1 || b > 0xFFFFFFFFll) return std::nullopt;
  r.start = static_cast<std::uint64_t>(a);
  r.stop = static_cast<std::uint64_t>(b);
  r.step = static_cast<std::uint64_t>(step);
  return r;
}

bool expand_generate(std::string_view t, std::uint64_t value, std::string& out) {
  for (std::size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '\\' && i + 1 < t.size() && t[i + 1] == '$') {
      out += "\\$";  // stays escaped: the name parser reads "\$" as '$'
      ++i;
      continue;
    }
    if (c != '$') {
      out += c;
      continue;
    }
    std::int64_t offset = 0, width = 0;
    char base = 'd';
    if (i + 1 < t.size() && t[i + 1] == '{') {
      std::size_t close = t.find('}', i);
      if (close == std::string_view::npos) return false;
      std::string_view spec = t.substr(i + 2, close - i - 2);
      std::size_t c1 = spec.find(',');
      if (!number(spec.substr(0, c1), offset)) return false;
      if (c1 != std::string_view::npos) {
        std::string_view rest = spec.substr(c1 + 1);
        std::size_t c2 = rest.find(',');
        if (!number(rest.substr(0, c2), width) || width < 0 || width > 255) return false;
        if (c2 != std::string_view::npos) {
          std::string_view b = rest.substr(c2 + 1);
          if (b.size() != 1 || std::string_view("doxXnN").find(b[0]) == std::string_view::npos)
            return false;
          base = b[0];
        }
      }
      i = close;
    }
    std::int64_t v = static_cast<std::int64_t>(value) + offset;
    if (v < 0) return false;
    auto uv = static_cast<std::uint64_t>(v);
    std::string digits;
    if (base == 'n' || base == 'N') {
      // Nibbles, least significant first, dot-separated; width counts nibbles.
      const char* hex = base == 'n' ? "0123456789abcdef" : "0123456789ABCDEF";
      std::int64_t n = 0;
      do {
        if (!digits.empty()) digits += '.';
        digits += hex[uv & 15];
        uv >>= 4;
        ++n;
      } while (uv != 0 || n < width);
      out += digits;
      continue;
    }
    unsigned radix = base == 'o' ? 8 : (base == 'x' || base == 'X') ? 16 : 10;
    const char* alphabet = base == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
      digits.insert(digits.begin(), alphabet[uv % radix]);
      uv /= radix;
    } while (uv != 0);
    while (static_cast<std::int64_t>(digits.size()) < width) digits.insert(digits.begin(), '0');
    out += digits;
  }
  return true;
}

}  // namespace herald::dns::detail
