// ExactDivisor against plain division (its twin), for every divisor a byte
// class count can be (1..256) and beyond, at multiples up to 2^32.
#include "match/detail/exact_divisor.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace herald::match::detail {
namespace {

TEST(ExactDivisor, EqualsDivisionOnEveryMultiple) {
  std::mt19937 rng(7);
  for (std::uint32_t d = 1; d <= 4096; ++d) {
    const ExactDivisor div(d);
    const std::uint32_t max_q = 0xFFFFFFFFu / d;
    for (std::uint32_t q : {0u, 1u, 2u, max_q / 2, max_q - 1, max_q}) {
      ASSERT_EQ(div.divide(q * d), q) << "d=" << d << " q=" << q;
    }
    for (int i = 0; i < 200; ++i) {
      const std::uint32_t q = rng() % (max_q + 1ull);
      ASSERT_EQ(div.divide(q * d), q) << "d=" << d << " q=" << q;
    }
  }
}

TEST(ExactDivisor, LargeDivisors) {
  for (const std::uint32_t d : {65536u, 65537u, 1u << 31, 0xFFFFFFFFu, 3u << 30}) {
    const ExactDivisor div(d);
    for (std::uint32_t q = 0; q <= 0xFFFFFFFFu / d; ++q) ASSERT_EQ(div.divide(q * d), q);
  }
}

}  // namespace
}  // namespace herald::match::detail
