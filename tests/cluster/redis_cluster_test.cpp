// Cluster mode over a real Redis Cluster (three masters on loopback, formed
// with redis-cli --cluster create): rooms are routed by the cluster's slot
// map, and our slot function agrees with Redis's own CLUSTER KEYSLOT.
#include <gtest/gtest.h>

#include <set>

#include "cluster_support.hpp"
#include "gateway/broker/cluster_slots.hpp"

namespace herald::test {
namespace {

struct RedisCluster {
  RedisCluster() {
    for (int i = 0; i < 3; ++i) nodes.push_back(std::make_unique<RedisServer>(false, true));
    std::vector<std::string> argv = {"/usr/bin/redis-cli", "--cluster", "create"};
    for (const auto& n : nodes) argv.push_back("127.0.0.1:" + std::to_string(n->port()));
    argv.insert(argv.end(), {"--cluster-replicas", "0", "--cluster-yes"});
    RunResult r = run(argv, {}, std::chrono::seconds(60));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const auto& n : nodes) {
      EXPECT_TRUE(eventually(
          [&] {
            return n->command({"CLUSTER", "INFO"}).str.find("cluster_state:ok") !=
                   std::string::npos;
          },
          std::chrono::seconds(30)))
          << "cluster not ok on " << n->port();
    }
  }
  std::vector<std::unique_ptr<RedisServer>> nodes;
};

TEST(RedisClusterMode, OurKeySlotIsRedisClusterKeyslot) {
  RedisServer one(false, true);  // CLUSTER KEYSLOT needs cluster mode, not a formed cluster
  EXPECT_EQ(gateway::key_slot("123456789"), 0x31C3 % 16384);  // the CRC16 check value
  for (std::string key : {"herald:{chat:lobby}:m", "herald:{chat:lobby}:h", "plain", "{}", "a{}b",
                          "{x}{y}", "x{", "}{tag}", "herald:nodes", "herald:{caf\xc3\xa9}:c"}) {
    EXPECT_EQ(gateway::key_slot(key), one.command({"CLUSTER", "KEYSLOT", key}).integer) << key;
  }
}

TEST(RedisClusterMode, RoomsAreRoutedByTheSlotMapOfARealRedisCluster) {
  RedisCluster rc;
  const std::vector<std::string> extra = {"--cluster.redis.topology", "cluster"};
  Daemon a(cluster_flags(rc.nodes[0]->port(), extra));
  Daemon b(cluster_flags(rc.nodes[1]->port(), extra));  // another seed, same map
  constexpr int kRooms = 24;
  auto sub = connect_as(b.port, "s");
  for (int i = 0; i < kRooms; ++i)
    ASSERT_TRUE(json_has(subscribe(*sub, 100 + i, "rc:" + std::to_string(i)), "/result"));
  auto pub = connect_as(a.port, "p");
  for (int i = 0; i < kRooms; ++i) {
    auto r = publish(*pub, 200 + i, "rc:" + std::to_string(i), std::to_string(i));
    ASSERT_TRUE(json_has(r, "/result")) << r;
  }
  std::set<std::string> got;
  for (int i = 0; i < kRooms; ++i) {
    auto m = next_pub(*sub);
    ASSERT_TRUE(m);
    got.insert(json_str(*m, "/pub/room").value_or(""));
  }
  EXPECT_EQ(got.size(), static_cast<std::size_t>(kRooms));
  // The rooms' keys sit on more than one master.
  int holding = 0;
  for (const auto& n : rc.nodes) holding += n->command({"DBSIZE"}).integer > 0 ? 1 : 0;
  EXPECT_GE(holding, 2);
  // And a client reconnecting elsewhere still recovers.
  auto again = connect_as(a.port, "s2");
  auto r =
      subscribe(*again, 2, "rc:0",
                R"({"epoch":")" +
                    json_str(publish(*pub, 300, "rc:0", "\"x\""), "/result/epoch").value_or("") +
                    R"(","offset":1})");
  EXPECT_EQ(json_bool(r, "/result/recovered"), true) << r;
  EXPECT_EQ(json_size(r, "/result/publications"), 1u) << r;
}

TEST(RedisClusterMode, AnAddressThatIsNotAClusterStopsStartUpWithTheReason) {
  RedisServer plain;
  auto proc = std::make_unique<ChildProcess>(std::vector<std::string>{
      HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--cluster.mode", "redis",
      "--cluster.redis.topology", "cluster", "--cluster.redis.address",
      "127.0.0.1:" + std::to_string(plain.port())});
  EXPECT_EQ(proc->wait_exit(std::chrono::seconds(10)), 2);
  EXPECT_NE(proc->output().find("cluster.redis.address"), std::string::npos) << proc->output();
}

}  // namespace
}  // namespace herald::test
