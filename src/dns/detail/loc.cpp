#include "dns/detail/loc.hpp"

#include <cstdio>

namespace herald::dns::detail {
namespace {

constexpr std::uint32_t kEquator = 1u << 31;      // also the prime meridian
constexpr std::int64_t kAltitudeBase = 10000000;  // 100,000 m in cm
// The farthest latitude and longitude from kEquator, in milliseconds of arc.
constexpr std::int64_t kAngleLimit[2] = {90LL * 3600000, 180LL * 3600000};

std::uint32_t get32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

std::uint64_t size_cm(std::uint8_t v) {
  std::uint64_t cm = v >> 4;
  for (int e = 0; e < (v & 15); ++e) cm *= 10;
  return cm;
}

void append_metres(std::int64_t cm, std::string& out) {
  char buf[48];
  const char* sign = cm < 0 ? "-" : "";
  std::int64_t a = cm < 0 ? -cm : cm;
  if (a % 100 == 0) {
    std::snprintf(buf, sizeof buf, "%s%lldm", sign, static_cast<long long>(a / 100));
  } else {
    std::snprintf(buf, sizeof buf, "%s%lld.%02lldm", sign, static_cast<long long>(a / 100),
                  static_cast<long long>(a % 100));
  }
  out += buf;
}

void append_angle(std::uint32_t raw, char pos, char neg, std::string& out) {
  std::int64_t v = static_cast<std::int64_t>(raw) - kEquator;
  char hemi = v < 0 ? neg : pos;
  if (v < 0) v = -v;
  std::int64_t ms = v % 1000, s = v / 1000 % 60, m = v / 60000 % 60, d = v / 3600000;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld %lld %lld.%03lld %c", static_cast<long long>(d),
                static_cast<long long>(m), static_cast<long long>(s), static_cast<long long>(ms),
                hemi);
  out += buf;
}

// A decimal with up to `frac` fraction digits, scaled by 10^frac. An
// optional trailing 'm' is allowed when `metres`.
bool decimal(std::string_view s, int frac, bool metres, bool allow_sign, std::int64_t& out) {
  if (metres && !s.empty() && (s.back() == 'm' || s.back() == 'M')) s.remove_suffix(1);
  bool neg = false;
  if (allow_sign && !s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  std::int64_t whole = 0, part = 0;
  int digits = 0;
  bool dot = false, any = false;
  for (char c : s) {
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
    any = true;
    if (!dot) {
      whole = whole * 10 + (c - '0');
      if (whole > 100000000000LL) return false;
    } else {
      if (++digits > frac) return false;
      part = part * 10 + (c - '0');
    }
  }
  if (!any) return false;
  for (int i = digits; i < frac; ++i) part *= 10;
  std::int64_t scale = 1;
  for (int i = 0; i < frac; ++i) scale *= 10;
  out = (whole * scale + part) * (neg ? -1 : 1);
  return true;
}

// Centimetres to the 4-bit mantissa / exponent form (rounding down).
bool encode_size(std::int64_t cm, std::uint8_t& out) {
  if (cm < 0 || cm > 9000000000LL) return false;
  int e = 0;
  while (cm >= 10) {
    cm /= 10;
    ++e;
  }
  out = static_cast<std::uint8_t>(cm << 4 | e);
  return true;
}

}  // namespace

long loc_wire_check(std::span<const std::uint8_t> r) {
  if (r.size() < 16 || r[0] != 0) return 0;
  for (std::size_t k = 1; k <= 3; ++k) {
    // Zero is one octet, 0x00: a zero mantissa with a non-zero exponent
    // prints as "0m" too, which reads back as 0x00.
    const bool zero_mantissa = (r[k] >> 4) == 0 && r[k] != 0;
    if ((r[k] >> 4) > 9 || (r[k] & 15) > 9 || zero_mantissa) return static_cast<long>(k);
  }
  for (std::size_t k = 0; k < 2; ++k) {
    const std::int64_t offset = static_cast<std::int64_t>(get32(&r[4 + 4 * k])) - kEquator;
    if (offset > kAngleLimit[k] || -offset > kAngleLimit[k]) return static_cast<long>(4 + 4 * k);
  }
  return -1;
}

void loc_to_text(std::span<const std::uint8_t> r, std::string& out) {
  append_angle(get32(&r[4]), 'N', 'S', out);
  out += ' ';
  append_angle(get32(&r[8]), 'E', 'W', out);
  out += ' ';
  append_metres(static_cast<std::int64_t>(get32(&r[12])) - kAltitudeBase, out);
  for (int i = 1; i <= 3; ++i) {
    out += ' ';
    append_metres(static_cast<std::int64_t>(size_cm(r[static_cast<std::size_t>(i)])), out);
  }
}

Error loc_from_text(std::span<const TextToken> t, std::size_t at, std::vector<std::uint8_t>& out) {
  std::size_t i = 0;
  auto where = [&] { return i < t.size() ? t[i].offset : at; };
  std::uint32_t angles[2];
  const char hemis[2][2] = {{'N', 'S'}, {'E', 'W'}};
  for (int k = 0; k < 2; ++k) {
    std::int64_t parts[3] = {0, 0, 0};  // degrees, minutes, milliseconds
    int n = 0;
    while (i < t.size() && n < 3 && t[i].text != std::string_view(&hemis[k][0], 1) &&
           t[i].text != std::string_view(&hemis[k][1], 1)) {
      std::int64_t v;
      if (!decimal(t[i].text, n == 2 ? 3 : 0, false, false, v))
        return text_error(t[i].offset, "expected degrees, minutes or seconds");
      parts[n++] = v;
      ++i;
    }
    if (n == 0 || i >= t.size())
      return text_error(where(), k == 0 ? "expected N or S" : "expected E or W");
    // The size first: a quoted "" is an empty token.
    if (t[i].text.size() != 1 || (t[i].text[0] != hemis[k][0] && t[i].text[0] != hemis[k][1]))
      return text_error(t[i].offset, k == 0 ? "expected N or S" : "expected E or W");
    const bool neg = t[i].text[0] == hemis[k][1];
    ++i;
    if (parts[1] > 59 || parts[2] > 59999)
      return text_error(where(), "minutes or seconds out of range");
    std::int64_t ms = parts[0] * 3600000 + parts[1] * 60000 + parts[2];
    if (ms > kAngleLimit[k]) return text_error(where(), "angle out of range");
    angles[k] = static_cast<std::uint32_t>(kEquator + (neg ? -ms : ms));
  }
  std::int64_t alt;
  if (i >= t.size() || !decimal(t[i].text, 2, true, true, alt))
    return text_error(where(), "expected an altitude in metres");
  ++i;
  alt += kAltitudeBase;
  if (alt < 0 || alt > 0xFFFFFFFFLL) return text_error(where(), "altitude out of range");
  std::uint8_t sizes[3] = {0x12, 0x16, 0x13};  // 1m, 10000m, 10m (RFC 1876 defaults)
  for (int k = 0; k < 3 && i < t.size(); ++k, ++i) {
    std::int64_t cm;
    if (!decimal(t[i].text, 2, true, false, cm) || !encode_size(cm, sizes[k]))
      return text_error(t[i].offset, "expected a size in metres");
  }
  if (i < t.size()) return text_error(t[i].offset, "unexpected text after LOC");
  out.push_back(0);
  out.insert(out.end(), sizes, sizes + 3);
  put32(out, angles[0]);
  put32(out, angles[1]);
  put32(out, static_cast<std::uint32_t>(alt));
  return {};
}

}  // namespace herald::dns::detail
