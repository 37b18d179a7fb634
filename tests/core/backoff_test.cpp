// Backoff: doubling from min, capped at max, reset by a success.
#include "core/time/backoff.hpp"

#include <gtest/gtest.h>

namespace herald {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, DoublesFromMinUpToMaxAndResets) {
  Backoff b(milliseconds(50), milliseconds(300));
  EXPECT_EQ(b.current(), milliseconds(0));
  EXPECT_EQ(b.next(), milliseconds(50));
  EXPECT_EQ(b.next(), milliseconds(100));
  EXPECT_EQ(b.next(), milliseconds(200));
  EXPECT_EQ(b.next(), milliseconds(300));
  EXPECT_EQ(b.next(), milliseconds(300));
  b.reset();
  EXPECT_EQ(b.next(), milliseconds(50));
}

TEST(Backoff, AMaxBelowMinIsMin) {
  Backoff b(milliseconds(100), milliseconds(10));
  EXPECT_EQ(b.next(), milliseconds(100));
  EXPECT_EQ(b.next(), milliseconds(100));
}

}  // namespace
}  // namespace herald
