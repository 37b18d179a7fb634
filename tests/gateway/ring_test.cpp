#include <gtest/gtest.h>

#include "gateway/broker/publication_ring.hpp"

namespace herald::gateway {
namespace {

StoredPublication pub(std::uint64_t offset, std::int64_t at = 0) {
  return StoredPublication{offset, at, make_frame(std::to_string(offset))};
}

TEST(PublicationRing, KeepsTheNewestUpToCapacity) {
  PublicationRing r(3);
  for (std::uint64_t o = 1; o <= 5; ++o) r.push(pub(o));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.front().offset, 3u);
  EXPECT_EQ(r.back().offset, 5u);
  EXPECT_EQ(r.at(1).frame->text, "4");
}

TEST(PublicationRing, FirstAfterIsArithmetic) {
  PublicationRing r(4);
  for (std::uint64_t o = 10; o <= 13; ++o) r.push(pub(o));
  EXPECT_EQ(r.first_after(0), 0u);
  EXPECT_EQ(r.first_after(9), 0u);
  EXPECT_EQ(r.first_after(10), 1u);
  EXPECT_EQ(r.first_after(12), 3u);
  EXPECT_EQ(r.first_after(13), 4u);
  EXPECT_EQ(r.first_after(99), 4u);
}

TEST(PublicationRing, ExpireDropsOldEntriesOnly) {
  PublicationRing r(5);
  r.push(pub(1, 100));
  r.push(pub(2, 200));
  r.push(pub(3, 300));
  r.expire(200);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.front().offset, 3u);
  r.push(pub(4, 400));  // still consecutive after wrapping the head
  EXPECT_EQ(r.first_after(3), 1u);
  r.expire(1000);
  EXPECT_TRUE(r.empty());
}

TEST(PublicationRing, ZeroCapacityKeepsNothing) {
  PublicationRing r(0);
  r.push(pub(1));
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.first_after(0), 0u);
}

}  // namespace
}  // namespace herald::gateway
