// ASCII case folding for names, in two twins: a plain byte loop and a SWAR
// version that folds eight octets per step. Tests compare them on every byte
// value; bench_dns measures both (docs/benchmarks.md).
//
// Folding a whole wire-form name, length octets included, is sound: a label
// length is at most 63 (0x3F), below 'A' (0x41), so folding never changes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace herald::dns::detail {

constexpr std::uint8_t fold_byte(std::uint8_t c) noexcept {
  return static_cast<std::uint8_t>(c >= 'A' && c <= 'Z' ? c | 0x20 : c);
}

inline void fold_plain(const std::uint8_t* in, std::uint8_t* out, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) out[i] = fold_byte(in[i]);
}

// Folds the eight octets of `x` at once. For each byte b < 0x80:
// (b & 0x7F) + (0x80 - 'A') sets bit 7 iff b >= 'A'; + (0x7F - 'Z') sets it
// iff b > 'Z'; neither sum carries into the next byte because both operands
// are below 0x80. Bytes >= 0x80 are masked out and left alone.
constexpr std::uint64_t fold_word(std::uint64_t x) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  constexpr std::uint64_t high = 0x8080808080808080ULL;
  std::uint64_t low7 = x & ~high;
  std::uint64_t ge_a = low7 + ones * (0x80 - 'A');
  std::uint64_t gt_z = low7 + ones * (0x7F - 'Z');
  std::uint64_t upper = (ge_a ^ gt_z) & ~x & high;
  return x | (upper >> 2);  // bit 7 -> bit 5 (0x20)
}

inline std::uint64_t load64(const std::uint8_t* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);  // Safety: memcpy, so no alignment or aliasing assumption
  return v;
}

inline void fold_swar(const std::uint8_t* in, std::uint8_t* out, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w = fold_word(load64(in + i));
    std::memcpy(out + i, &w, 8);  // Safety: byte copy of a local
  }
  for (; i < n; ++i) out[i] = fold_byte(in[i]);
}

// Case-insensitive equality of two equal-length byte ranges.
inline bool iequal_plain(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (fold_byte(a[i]) != fold_byte(b[i])) return false;
  }
  return true;
}

inline bool iequal_swar(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if (fold_word(load64(a + i)) != fold_word(load64(b + i))) return false;
  }
  for (; i < n; ++i) {
    if (fold_byte(a[i]) != fold_byte(b[i])) return false;
  }
  return true;
}

// Case-insensitive hash (64-bit multiply-xorshift per word); equal under
// folding implies equal hashes, by construction from folded words.
inline std::uint64_t ihash(const std::uint8_t* p, std::size_t n,
                           std::uint64_t seed = 0x9E3779B97F4A7C15ULL) noexcept {
  std::uint64_t h = seed ^ n;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ fold_word(load64(p + i))) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  std::uint64_t tail = 0;
  for (std::size_t k = 0; i < n; ++i, ++k) tail |= std::uint64_t{fold_byte(p[i])} << (8 * k);
  h = (h ^ tail) * 0x94D049BB133111EBULL;
  return h ^ (h >> 29);
}

// ihash(p, n), with the tail (the last n % 8 octets) read as one word and
// masked instead of octet by octet: the caller guarantees that p[n..n+7] are
// readable (they belong to its own buffer, e.g. the rest of a Name's fixed
// array); their values do not matter. Equal to ihash for every input (tests
// compare them); the compression map hashes every label it writes with it,
// where the octet loop was a quarter of the map's instructions (callgrind,
// D1's query mix).
inline std::uint64_t ihash_overread(const std::uint8_t* p, std::size_t n,
                                    std::uint64_t seed = 0x9E3779B97F4A7C15ULL) noexcept {
  std::uint64_t h = seed ^ n;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ fold_word(load64(p + i))) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  std::uint64_t tail = 0;
  if (i < n) {
    // Little-endian: octet k of the word is bits 8k..8k+7, as ihash builds it.
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
    tail = fold_word(load64(p + i) & ((std::uint64_t{1} << (8 * (n - i))) - 1));
  }
  h = (h ^ tail) * 0x94D049BB133111EBULL;
  return h ^ (h >> 29);
}

}  // namespace herald::dns::detail
