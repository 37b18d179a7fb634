// UTF-8 units as the engine defines them. Text is searched as bytes and may be
// invalid UTF-8; wherever code points matter (case folding, word boundaries,
// code-point offsets) the text is cut into *units*: a unit is either one
// well-formed UTF-8 sequence (shortest form, no surrogates, at most U+10FFFF)
// or, failing that, a single byte. Decoding is greedy from the left.
//
// Invariant used throughout: every byte that is not a continuation byte
// (10xxxxxx) starts a unit, because a well-formed sequence contains exactly
// one such byte, its first. So decoding may begin at any non-continuation
// byte and yields the same units as decoding from the start of the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace herald::match::detail {

inline constexpr std::uint32_t kInvalid = 0xFFFFFFFFu;

struct Unit {
  std::uint32_t cp;   // the code point, or kInvalid for a lone byte
  std::uint32_t len;  // 1..4 bytes
};

[[nodiscard]] inline bool is_continuation(std::uint8_t b) {
  return (b & 0xC0) == 0x80;
}

// Decodes the unit starting at text[i] (i < text.size()).
[[nodiscard]] inline Unit decode(std::string_view text, std::size_t i) {
  // Safety: reading chars as unsigned bytes; every index is checked below.
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::size_t n = text.size();
  const std::uint8_t b0 = p[i];
  if (b0 < 0x80) return {b0, 1};
  std::uint32_t len;
  std::uint32_t cp;
  std::uint32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, cp = b0 & 0x1Fu, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, cp = b0 & 0x0Fu, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, cp = b0 & 0x07u, min = 0x10000;
  } else {
    return {kInvalid, 1};
  }
  if (n - i < len) return {kInvalid, 1};
  for (std::uint32_t k = 1; k < len; ++k) {
    if (!is_continuation(p[i + k])) return {kInvalid, 1};
    cp = (cp << 6) | (p[i + k] & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {kInvalid, 1};
  return {cp, len};
}

// Writes the UTF-8 encoding of a valid code point; returns its length.
inline std::uint32_t encode(std::uint32_t cp, std::uint8_t out[4]) {
  if (cp < 0x80) {
    out[0] = static_cast<std::uint8_t>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<std::uint8_t>(0xC0 | (cp >> 6));
    out[1] = static_cast<std::uint8_t>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<std::uint8_t>(0xE0 | (cp >> 12));
    out[1] = static_cast<std::uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<std::uint8_t>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<std::uint8_t>(0xF0 | (cp >> 18));
  out[1] = static_cast<std::uint8_t>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<std::uint8_t>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<std::uint8_t>(0x80 | (cp & 0x3F));
  return 4;
}

// True when a unit starts at byte i (i < text.size()). Local: a continuation
// byte starts a unit only if no well-formed sequence beginning at one of the
// three bytes before it covers it.
[[nodiscard]] inline bool is_unit_start(std::string_view text, std::size_t i) {
  // Safety: unsigned view of the same bytes.
  const auto b = static_cast<std::uint8_t>(text[i]);
  if (!is_continuation(b)) return true;
  for (std::size_t back = 1; back <= 3 && back <= i; ++back) {
    const auto lead = static_cast<std::uint8_t>(text[i - back]);
    if (is_continuation(lead)) continue;
    const Unit u = decode(text, i - back);
    return !(u.cp != kInvalid && u.len > back);
  }
  return true;
}

// The unit that ends exactly at byte offset `end` (0 < end <= size), i.e. the
// unit containing byte end-1 when end is a unit boundary. Returns its code
// point or kInvalid.
[[nodiscard]] inline std::uint32_t unit_before(std::string_view text, std::size_t end) {
  for (std::size_t back = 1; back <= 4 && back <= end; ++back) {
    if (is_unit_start(text, end - back)) {
      const Unit u = decode(text, end - back);
      return u.len == back ? u.cp : kInvalid;
    }
  }
  return kInvalid;
}

// Number of units that start in [0, end): the code-point offset of `end`.
[[nodiscard]] inline std::size_t count_units(std::string_view text, std::size_t begin,
                                             std::size_t end) {
  std::size_t count = 0;
  for (std::size_t i = begin; i < end; ++i) count += is_unit_start(text, i) ? 1 : 0;
  return count;
}

}  // namespace herald::match::detail
