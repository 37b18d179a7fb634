// The consistent-hash ring that spreads rooms over Redis shards.
#include "gateway/broker/shard_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace herald::gateway {
namespace {

std::vector<std::string> rooms(unsigned n) {
  std::vector<std::string> out;
  for (unsigned i = 0; i < n; ++i) out.push_back("chat:room" + std::to_string(i));
  return out;
}

TEST(ShardRing, OneShardTakesEverything) {
  ShardRing ring({"127.0.0.1:6379"});
  for (const auto& r : rooms(100)) EXPECT_EQ(ring.shard_of(r), 0u);
}

TEST(ShardRing, TheOwnerDoesNotDependOnTheOrderOfTheList) {
  const std::vector<std::string> a = {"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"};
  const std::vector<std::string> b = {a[2], a[0], a[1]};
  ShardRing ra(a), rb(b);
  for (const auto& r : rooms(2000)) EXPECT_EQ(a[ra.shard_of(r)], b[rb.shard_of(r)]) << r;
}

TEST(ShardRing, RoomsSpreadOverShardsAndAnAddedShardMovesOnlyItsShare) {
  const std::vector<std::string> three = {"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"};
  std::vector<std::string> four = three;
  four.push_back("10.0.0.4:6379");
  ShardRing r3(three), r4(four);
  const auto names = rooms(30'000);
  std::vector<unsigned> count(3, 0);
  unsigned moved = 0;
  for (const auto& r : names) {
    const std::size_t before = r3.shard_of(r), after = r4.shard_of(r);
    ++count[before];
    if (before != after) {
      ++moved;
      EXPECT_EQ(after, 3u) << r << " moved between old shards";
    }
  }
  // Balanced within a generous margin (128 points per shard), and about a
  // quarter of the rooms move to the fourth shard.
  for (unsigned c : count) {
    EXPECT_GT(c, names.size() / 5) << "a shard got too few rooms";
    EXPECT_LT(c, names.size() / 2) << "a shard got too many rooms";
  }
  EXPECT_GT(moved, names.size() / 8);
  EXPECT_LT(moved, names.size() / 2);
}

}  // namespace
}  // namespace herald::gateway
