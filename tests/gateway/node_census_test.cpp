// The node's census (client/node_census.hpp) against a plain oracle: a
// multiset of who is connected and where they subscribe, whose distinct
// keys and sizes are what the census must report.
#include "gateway/client/node_census.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <thread>
#include <vector>

namespace herald::gateway::client {
namespace {

TEST(NodeCensus, UsersAndRoomsAreDistinctAndCountedDown) {
  NodeCensus census;
  census.connected("alice");
  census.connected("alice");  // a second connection of the same user
  census.connected("bob");
  census.subscribed("news");
  census.subscribed("news");
  census.subscribed("chat:1");
  auto c = census.counts();
  EXPECT_EQ(c.clients, 3u);
  EXPECT_EQ(c.users, 2u);
  EXPECT_EQ(c.rooms, 2u);
  EXPECT_EQ(c.subscriptions, 3u);

  census.disconnected("alice");
  census.unsubscribed("news");
  c = census.counts();
  EXPECT_EQ(c.clients, 2u);
  EXPECT_EQ(c.users, 2u);  // alice still has a connection
  EXPECT_EQ(c.rooms, 2u);
  census.disconnected("alice");
  census.unsubscribed("news");
  c = census.counts();
  EXPECT_EQ(c.users, 1u);
  EXPECT_EQ(c.rooms, 1u);

  auto rooms = census.rooms([](const std::string& r) { return r.starts_with("chat:"); });
  ASSERT_EQ(rooms.size(), 1u);
  EXPECT_EQ(rooms[0], (std::pair<std::string, std::uint64_t>("chat:1", 1)));
  EXPECT_TRUE(census.rooms([](const std::string& r) { return r == "news"; }).empty());
}

TEST(NodeCensus, RandomTransitionsMatchAMultiset) {
  std::mt19937 rng(42);
  NodeCensus census;
  std::multiset<std::string> users, rooms;
  auto name = [&rng](char kind) { return std::string(1, kind) + std::to_string(rng() % 7); };
  for (int step = 0; step < 20'000; ++step) {
    const std::string user = name('u'), room = name('r');
    switch (rng() % 4) {
      case 0:
        census.connected(user);
        users.insert(user);
        break;
      case 1:  // only what was counted is undone, as the client core does
        if (auto it = users.find(user); it != users.end()) {
          census.disconnected(user);
          users.erase(it);
        }
        break;
      case 2:
        census.subscribed(room);
        rooms.insert(room);
        break;
      default:
        if (auto it = rooms.find(room); it != rooms.end()) {
          census.unsubscribed(room);
          rooms.erase(it);
        }
    }
    const auto c = census.counts();
    ASSERT_EQ(c.clients, users.size()) << "step " << step;
    ASSERT_EQ(c.users, std::set<std::string>(users.begin(), users.end()).size());
    ASSERT_EQ(c.subscriptions, rooms.size());
    ASSERT_EQ(c.rooms, std::set<std::string>(rooms.begin(), rooms.end()).size());
  }
  for (const auto& [room, n] : census.rooms([](const std::string&) { return true; }))
    EXPECT_EQ(n, rooms.count(room)) << room;
}

// Shards tell the census concurrently (a TSan test: gateway_unit_test is
// labelled threaded).
TEST(NodeCensus, ShardsTellItConcurrently) {
  NodeCensus census;
  std::vector<std::thread> shards;
  for (int t = 0; t < 2; ++t) {
    shards.emplace_back([&census, t] {
      for (int i = 0; i < 5'000; ++i) {
        const std::string user = "u" + std::to_string(i % 10), room = "r" + std::to_string(t);
        census.connected(user);
        census.subscribed(room);
        if (i % 2 == 1) {
          census.unsubscribed(room);
          census.disconnected(user);
        }
      }
    });
  }
  for (auto& s : shards) s.join();
  const auto c = census.counts();
  EXPECT_EQ(c.clients, 5'000u);
  EXPECT_EQ(c.users, 5u);  // the even ones stay: u0, u2, .., u8
  EXPECT_EQ(c.rooms, 2u);
  EXPECT_EQ(c.subscriptions, 5'000u);
}

}  // namespace
}  // namespace herald::gateway::client
