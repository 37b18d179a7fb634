// Cluster mode keeps the same budgets as the embedded broker
// (gateway/limits/): a node follows at most rooms.max_rooms rooms, a name
// gets keys in Redis only from a publish or a successful subscribe, and
// join/leave pushes are limited per room on each node. Real heraldd nodes,
// a real redis-server, real WebSocket clients.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "cluster_support.hpp"
#include "gateway/subscription_probes.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

// Keys of `room` in Redis (meta, history, presence): what a name costs there.
std::size_t room_keys(const RedisServer& redis, const std::string& room) {
  return redis.command({"KEYS", "herald:{" + room + "}:*"}).elements.size();
}

TEST(ClusterBudget, ARefusedSubscribeAndAHistoryOfAnUnknownRoomWriteNothingToRedis) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port(), {"--rooms.max_rooms", "2"}));
  auto c = connect_as(a.port, "u");
  EXPECT_TRUE(json_has(subscribe(*c, 2, "held-1"), "/result/epoch"));
  EXPECT_TRUE(json_has(subscribe(*c, 3, "held-2"), "/result/epoch"));
  EXPECT_EQ(node_metric(a.port, "herald_rooms"), 2);

  auto refused = request(*c, 4, subscribe_cmd(4, "refused"));
  EXPECT_EQ(json_uint(refused.value_or(""), "/error/code"), 115u) << refused.value_or("");
  EXPECT_THAT(refused.value_or(""), HasSubstr("rooms.max_rooms"));
  auto history = request(*c, 5, R"({"id":5,"history":{"room":"unknown"}})");
  EXPECT_EQ(json_str(history.value_or(""), "/result/epoch"), "") << history.value_or("");
  EXPECT_EQ(json_uint(history.value_or(""), "/result/offset"), 0u);
  auto presence = request(*c, 6, R"({"id":6,"presence":{"room":"unknown"}})");
  EXPECT_TRUE(json_has(presence.value_or(""), "/result/clients")) << presence.value_or("");

  EXPECT_EQ(room_keys(redis, "refused"), 0u);
  EXPECT_EQ(room_keys(redis, "unknown"), 0u);
  EXPECT_GT(room_keys(redis, "held-1"), 0u);  // a successful subscribe does write
  EXPECT_EQ(node_metric(a.port, "herald_rooms_refused_total"), 1);

  // The node lets a room go with its last local subscriber; then one fits.
  request(*c, 7, unsubscribe_cmd(7, "held-1"));
  EXPECT_TRUE(eventually([&] { return node_metric(a.port, "herald_rooms") == 1; }));
  EXPECT_TRUE(json_has(subscribe(*c, 8, "refused"), "/result/epoch"));
}

TEST(ClusterBudget, AFreshRoomFloodLeavesTheNodeHoldingNothing) {
  RedisServer redis;
  Daemon a(cluster_flags(
      redis.port(), {"--client.command_burst", "100000", "--client.max_subscriptions", "1000"}));
  auto c = connect_as(a.port, "flooder");
  std::string frame;
  std::set<std::uint64_t> ids;
  for (std::uint32_t i = 0; i < 300; ++i) {
    const std::string n = std::to_string(i);
    frame += subscribe_cmd(10 + 3 * i, "fresh-" + n) + "\n" +
             unsubscribe_cmd(11 + 3 * i, "fresh-" + n) + "\n" + R"({"id":)" +
             std::to_string(12 + 3 * i) + R"(,"history":{"room":"ghost-)" + n + "\"}}\n";
    ids.insert({10 + 3 * i, 11 + 3 * i, 12 + 3 * i});
  }
  c->send(frame);
  while (!ids.empty()) {
    auto m = c->next();
    ASSERT_TRUE(m) << ids.size() << " replies missing";
    ids.erase(json_uint(*m, "/id").value_or(0));
  }
  EXPECT_TRUE(eventually([&] { return node_metric(a.port, "herald_rooms") == 0; }));
  EXPECT_EQ(redis.command({"KEYS", "herald:{ghost-*"}).elements.size(), 0u);
  expect_alive(*c, 9);
}

// The churner on node a, the members on node b: the pushes cross Redis.
// Node a sends at most join_leave_rate of them a second for the room, and
// counts the rest.
TEST(ClusterBudget, JoinLeaveIsLimitedPerRoomOnTheChurnersNode) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port(), {"--rooms.join_leave_rate", "5", "--client.command_burst",
                                        "100000", "--client.max_pending_per_room", "1000"}));
  Daemon b(cluster_flags(redis.port()));
  std::vector<std::unique_ptr<WsClient>> members;
  for (int i = 0; i < 5; ++i) {
    members.push_back(connect_as(b.port, "member" + std::to_string(i)));
    subscribe(*members.back(), 2, "big");
  }
  for (auto& m : members) expect_alive(*m, 3);
  auto churner = connect_as(a.port, "churner");
  const double dropped_before = node_metric(a.port, "herald_join_leave_dropped_total");

  const std::uint32_t kCycles = 100;
  std::string frame;
  for (std::uint32_t i = 0; i < kCycles; ++i)
    frame += subscribe_cmd(10 + 2 * i, "big") + "\n" + unsubscribe_cmd(11 + 2 * i, "big") + "\n";
  churner->send(frame);
  for (std::uint32_t got = 0; got < 2 * kCycles;) {
    auto m = churner->next();
    ASSERT_TRUE(m) << got << " replies";
    if (json_has(*m, "/id")) ++got;
  }
  // A publication after the churn, on the same Redis connection as its
  // join and leave messages: member 0 has them all once it has this.
  auto marker = publish(*churner, 1000, "big", R"("end of churn")");
  ASSERT_TRUE(json_has(marker, "/result/offset")) << marker;
  std::uint32_t received = 0;
  bool marker_seen = false;
  while (auto m = members[0]->next()) {
    if (json_has(*m, "/pub")) {
      marker_seen = true;
      break;
    }
    if (json_str(*m, "/join/info/user") == "churner" ||
        json_str(*m, "/leave/info/user") == "churner")
      ++received;
  }
  ASSERT_TRUE(marker_seen);
  const double dropped = node_metric(a.port, "herald_join_leave_dropped_total") - dropped_before;
  EXPECT_EQ(received + dropped, 2 * kCycles) << "received " << received;
  EXPECT_LT(received, kCycles);
  for (auto& m : members) expect_alive(*m, 5);
}

}  // namespace
}  // namespace herald::test
