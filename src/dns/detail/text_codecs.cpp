#include "dns/detail/text_codecs.hpp"

#include <algorithm>
#include <array>

namespace herald::dns::detail {
namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kB32[] = "0123456789abcdefghijklmnopqrstuv";

int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

int b32_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'v') return c - 'a' + 10;
  if (c >= 'A' && c <= 'V') return c - 'A' + 10;
  return -1;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Howard Hinnant's civil-from-days and days-from-civil (proleptic Gregorian).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

void put_digits(std::string& out, std::int64_t v, int width) {
  char buf[8];
  for (int i = width - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  out.append(buf, static_cast<std::size_t>(width));
}

}  // namespace

void base64_encode(std::span<const std::uint8_t> in, std::string& out) {
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    std::uint32_t v = static_cast<std::uint32_t>(in[i]) << 16 | in[i + 1] << 8 | in[i + 2];
    out += kB64[v >> 18];
    out += kB64[v >> 12 & 63];
    out += kB64[v >> 6 & 63];
    out += kB64[v & 63];
  }
  if (in.size() - i == 1) {
    std::uint32_t v = static_cast<std::uint32_t>(in[i]) << 16;
    out += kB64[v >> 18];
    out += kB64[v >> 12 & 63];
    out += "==";
  } else if (in.size() - i == 2) {
    std::uint32_t v = static_cast<std::uint32_t>(in[i]) << 16 | in[i + 1] << 8;
    out += kB64[v >> 18];
    out += kB64[v >> 12 & 63];
    out += kB64[v >> 6 & 63];
    out += '=';
  }
}

bool base64_decode(std::string_view in, std::vector<std::uint8_t>& out) {
  if (in.size() % 4 != 0) return false;
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = in[i + static_cast<std::size_t>(k)];
      if (c == '=') {
        // Padding only in the last group, only in its last two places.
        if (i + 4 != in.size() || k < 2) return false;
        ++pad;
        v[k] = 0;
        continue;
      }
      if (pad > 0) return false;
      v[k] = b64_value(c);
      if (v[k] < 0) return false;
    }
    std::uint32_t w = static_cast<std::uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
    out.push_back(static_cast<std::uint8_t>(w >> 16));
    if (pad < 2) out.push_back(static_cast<std::uint8_t>(w >> 8));
    if (pad < 1) out.push_back(static_cast<std::uint8_t>(w));
  }
  return true;
}

void base32hex_encode(std::span<const std::uint8_t> in, std::string& out) {
  std::uint64_t acc = 0;
  int bits = 0;
  for (std::uint8_t b : in) {
    acc = acc << 8 | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += kB32[acc >> bits & 31];
    }
  }
  if (bits > 0) out += kB32[acc << (5 - bits) & 31];
}

bool base32hex_decode(std::string_view in, std::vector<std::uint8_t>& out) {
  std::uint64_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = b32_value(c);
    if (v < 0) return false;
    acc = acc << 5 | static_cast<std::uint64_t>(v);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>(acc >> bits));
    }
  }
  // Leftover bits must be padding zeros of a whole encoding (< 5 bits).
  return bits < 5 && (acc & ((1u << bits) - 1)) == 0;
}

void hex_encode(std::span<const std::uint8_t> in, std::string& out, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  for (std::uint8_t b : in) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
}

bool hex_decode(std::string_view in, std::vector<std::uint8_t>& out) {
  if (in.size() % 2 != 0) return false;
  for (std::size_t i = 0; i < in.size(); i += 2) {
    int hi = hex_value(in[i]), lo = hex_value(in[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
  }
  return true;
}

void time_encode(std::uint32_t t, std::string& out) {
  std::int64_t days = t / 86400;
  std::int64_t rem = t % 86400;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  put_digits(out, y, 4);
  put_digits(out, m, 2);
  put_digits(out, d, 2);
  put_digits(out, rem / 3600, 2);
  put_digits(out, rem / 60 % 60, 2);
  put_digits(out, rem % 60, 2);
}

bool time_decode(std::string_view in, std::uint32_t& out) {
  for (char c : in) {
    if (c < '0' || c > '9') return false;
  }
  if (in.empty()) return false;
  if (in.size() != 14) {
    // RFC 4034 §3.2: a plain decimal count of seconds is also accepted.
    if (in.size() > 10) return false;
    std::uint64_t v = 0;
    for (char c : in) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    if (v > 0xFFFFFFFFu) return false;
    out = static_cast<std::uint32_t>(v);
    return true;
  }
  auto num = [&](std::size_t at, std::size_t n) {
    std::int64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v = v * 10 + (in[at + i] - '0');
    return v;
  };
  std::int64_t y = num(0, 4), mo = num(4, 2), d = num(6, 2), h = num(8, 2), mi = num(10, 2),
               s = num(12, 2);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return false;
  std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + s;
  if (secs < 0) return false;
  out = static_cast<std::uint32_t>(secs & 0xFFFFFFFF);  // serial arithmetic (RFC 1982)
  return true;
}

}  // namespace herald::dns::detail

namespace herald::dns::detail {

void append_ipv4(const std::uint8_t* p, std::string& out) {
  for (int i = 0; i < 4; ++i) {
    if (i) out += '.';
    out += std::to_string(p[i]);
  }
}

void append_ipv6(const std::uint8_t* p, std::string& out) {
  std::uint16_t g[8];
  for (int i = 0; i < 8; ++i) g[i] = static_cast<std::uint16_t>(p[2 * i] << 8 | p[2 * i + 1]);
  // IPv4-mapped addresses keep the dotted quad (RFC 5952 §5).
  if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xFFFF) {
    out += "::ffff:";
    append_ipv4(p + 12, out);
    return;
  }
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (i > 0 && i != best + best_len) out += ':';
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      int d = g[i] >> shift & 15;
      if (d != 0 || started || shift == 0) {
        out += kHex[d];
        started = true;
      }
    }
  }
}

bool parse_ipv4(std::string_view s, std::uint8_t* out) {
  int part = 0;
  std::size_t i = 0;
  while (part < 4) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    int v = 0, digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + (s[i] - '0');
      if (++digits > 3 || v > 255) return false;
      ++i;
    }
    if (digits > 1 && s[i - static_cast<std::size_t>(digits)] == '0') return false;  // no 010
    out[part++] = static_cast<std::uint8_t>(v);
    if (part < 4) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
  }
  return i == s.size();
}

bool parse_ipv6(std::string_view s, std::uint8_t* out) {
  std::uint16_t g[8] = {};
  int n = 0, gap = -1;
  std::size_t i = 0;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    gap = 0;
    i = 2;
  } else if (!s.empty() && s[0] == ':') {
    return false;
  }
  while (i < s.size()) {
    // An embedded IPv4 tail (::ffff:192.0.2.1) takes the last two groups.
    std::size_t dot = s.find('.', i);
    std::size_t colon = s.find(':', i);
    if (dot != std::string_view::npos && (colon == std::string_view::npos || dot < colon)) {
      if (n > 6) return false;
      std::uint8_t v4[4];
      if (!parse_ipv4(s.substr(i), v4)) return false;
      g[n++] = static_cast<std::uint16_t>(v4[0] << 8 | v4[1]);
      g[n++] = static_cast<std::uint16_t>(v4[2] << 8 | v4[3]);
      break;  // the dotted quad ends the address
    }
    if (n >= 8) return false;
    int v = 0, digits = 0;
    while (i < s.size() && s[i] != ':') {
      char c = s[i];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0 || ++digits > 4) return false;
      v = v << 4 | d;
      ++i;
    }
    if (digits == 0) return false;
    g[n++] = static_cast<std::uint16_t>(v);
    if (i < s.size()) {  // at ':'
      ++i;
      if (i < s.size() && s[i] == ':') {
        if (gap >= 0) return false;
        gap = n;
        ++i;
      } else if (i == s.size()) {
        return false;  // trailing single colon
      }
    }
  }
  if (gap < 0 && n != 8) return false;
  if (gap >= 0 && n > 7) return false;
  std::uint16_t full[8] = {};
  if (gap < 0) {
    std::copy(g, g + 8, full);
  } else {
    int tail = n - gap;
    std::copy(g, g + gap, full);
    std::copy(g + gap, g + n, full + 8 - tail);
  }
  for (int k = 0; k < 8; ++k) {
    out[2 * k] = static_cast<std::uint8_t>(full[k] >> 8);
    out[2 * k + 1] = static_cast<std::uint8_t>(full[k]);
  }
  return true;
}

bool unescape(std::string_view s, std::vector<std::uint8_t>& out) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\') {
      out.push_back(static_cast<std::uint8_t>(c));
      continue;
    }
    if (i + 1 >= s.size()) return false;
    char n = s[i + 1];
    if (n >= '0' && n <= '9') {
      if (i + 3 >= s.size() || s[i + 2] < '0' || s[i + 2] > '9' || s[i + 3] < '0' || s[i + 3] > '9')
        return false;
      int v = (n - '0') * 100 + (s[i + 2] - '0') * 10 + (s[i + 3] - '0');
      if (v > 255) return false;
      out.push_back(static_cast<std::uint8_t>(v));
      i += 3;
    } else {
      out.push_back(static_cast<std::uint8_t>(n));
      i += 1;
    }
  }
  return true;
}

bool decimal_decode(std::string_view in, std::uint64_t max, bool units, std::uint64_t& out) {
  if (in.empty()) return false;
  std::uint64_t total = 0, cur = 0;
  bool digits = false, used_unit = false;
  for (char c : in) {
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + static_cast<std::uint64_t>(c - '0');
      if (cur > max) return false;  // max < 2^48, so the next *10 cannot wrap
      digits = true;
      continue;
    }
    if (!units || !digits) return false;
    std::uint64_t mul = 0;
    switch (c | 0x20) {
      case 's':
        mul = 1;
        break;
      case 'm':
        mul = 60;
        break;
      case 'h':
        mul = 3600;
        break;
      case 'd':
        mul = 86400;
        break;
      case 'w':
        mul = 604800;
        break;
      default:
        return false;
    }
    if (cur > (max - total) / mul) return false;  // total + cur*mul would pass max
    total += cur * mul;
    cur = 0;
    digits = false;
    used_unit = true;
  }
  if (used_unit && digits) return false;  // "1h30": a number after units
  if (cur > max - total) return false;
  out = total + cur;
  return true;
}

}  // namespace herald::dns::detail
