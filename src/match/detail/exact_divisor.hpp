// Division by a constant d, exact for the multiples of d only: one shift and
// one multiply. The DFA (dfa.hpp) needs it to go from a premultiplied state,
// s = index * stride, back to the state's index for its match list and
// depth. With a power-of-two stride that is a shift, which is why the table's
// rows used to be rounded up to one: 71 byte classes (100,000 English words)
// became rows of 128 entries, 45% of the table padding. An exact divisor
// lets a row be exactly as wide as the classes.
//
// Why it is exact: write d = odd * 2^twos. A multiple m = q * d gives
// m >> twos = q * odd exactly, and an odd number has an inverse modulo 2^32
// (Newton's iteration below doubles the correct low bits each step: 3, 6,
// 12, 24, 48), so (m >> twos) * inverse = q (mod 2^32), which is q itself
// because q < 2^32. For an m that is not a multiple the result is garbage:
// the DFA only ever divides row offsets.
#pragma once

#include <bit>
#include <cstdint>

namespace herald::match::detail {

class ExactDivisor {
 public:
  explicit constexpr ExactDivisor(std::uint32_t d = 1)
      : twos_(static_cast<std::uint32_t>(std::countr_zero(d))),
        inverse_(inverse_of(d >> std::countr_zero(d))) {}

  // m / d, for m a multiple of d.
  [[nodiscard]] constexpr std::uint32_t divide(std::uint32_t m) const {
    return (m >> twos_) * inverse_;
  }

 private:
  static constexpr std::uint32_t inverse_of(std::uint32_t odd) {
    std::uint32_t x = odd;  // correct to 3 bits: odd * odd = 1 (mod 8)
    for (int i = 0; i < 4; ++i) x *= 2 - odd * x;
    return x;
  }

  std::uint32_t twos_;
  std::uint32_t inverse_;
};

}  // namespace herald::match::detail
