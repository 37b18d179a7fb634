// The consistent-hash ring that spreads rooms over Redis servers.
#include "redis/hash_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace herald::redis {
namespace {

std::vector<std::string> rooms(unsigned n) {
  std::vector<std::string> out;
  for (unsigned i = 0; i < n; ++i) out.push_back("chat:room" + std::to_string(i));
  return out;
}

TEST(HashRing, OneServerTakesEverything) {
  HashRing ring({"127.0.0.1:6379"});
  for (const auto& r : rooms(100)) EXPECT_EQ(ring.server_of(r), 0u);
}

TEST(HashRing, TheOwnerDoesNotDependOnTheOrderOfTheList) {
  const std::vector<std::string> a = {"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"};
  const std::vector<std::string> b = {a[2], a[0], a[1]};
  HashRing ra(a), rb(b);
  for (const auto& r : rooms(2000)) EXPECT_EQ(a[ra.server_of(r)], b[rb.server_of(r)]) << r;
}

TEST(HashRing, RoomsSpreadOverServersAndAnAddedServerMovesOnlyItsShare) {
  const std::vector<std::string> three = {"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"};
  std::vector<std::string> four = three;
  four.push_back("10.0.0.4:6379");
  HashRing r3(three), r4(four);
  const auto names = rooms(30'000);
  std::vector<unsigned> count(3, 0);
  unsigned moved = 0;
  for (const auto& r : names) {
    const std::size_t before = r3.server_of(r), after = r4.server_of(r);
    ++count[before];
    if (before != after) {
      ++moved;
      EXPECT_EQ(after, 3u) << r << " moved between old servers";
    }
  }
  // Balanced within a generous margin (128 points per server), and about a
  // quarter of the rooms move to the fourth server.
  for (unsigned c : count) {
    EXPECT_GT(c, names.size() / 5) << "a server got too few rooms";
    EXPECT_LT(c, names.size() / 2) << "a server got too many rooms";
  }
  EXPECT_GT(moved, names.size() / 8);
  EXPECT_LT(moved, names.size() / 2);
}

}  // namespace
}  // namespace herald::redis
