// Cluster mode over a real Redis Cluster (three masters on loopback, formed
// with redis-cli --cluster create): rooms are routed by the cluster's slot
// map, our slot function agrees with Redis's own CLUSTER KEYSLOT, and a
// room whose slot is migrated to another master while heraldd runs follows
// it through ASK and MOVED redirections, up to cluster.redis.max_redirects.
#include "redis_cluster.hpp"

#include <gtest/gtest.h>

#include <set>

#include "cluster_support.hpp"
#include "gateway/broker/redis_schema.hpp"
#include "redirecting_redis.hpp"
#include "redis/cluster_slots.hpp"

namespace herald::test {
namespace {

TEST(RedisClusterMode, OurKeySlotIsRedisClusterKeyslot) {
  RedisServer one(false, true);  // CLUSTER KEYSLOT needs cluster mode, not a formed cluster
  EXPECT_EQ(redis::key_slot("123456789"), 0x31C3 % 16384);  // the CRC16 check value
  for (std::string key : {"herald:{chat:lobby}:m", "herald:{chat:lobby}:h", "plain", "{}", "a{}b",
                          "{x}{y}", "x{", "}{tag}", "herald:nodes", "herald:{caf\xc3\xa9}:c"}) {
    EXPECT_EQ(redis::key_slot(key), one.command({"CLUSTER", "KEYSLOT", key}).integer) << key;
  }
}

TEST(RedisClusterMode, RoomsAreRoutedByTheSlotMapOfARealRedisCluster) {
  RedisCluster rc;
  const std::vector<std::string> extra = {"--cluster.redis.topology", "cluster"};
  Daemon a(cluster_flags(rc.nodes[0]->port(), extra));
  Daemon b(cluster_flags(rc.nodes[1]->port(), extra));  // another seed, same map
  auto pub = expect_rooms_reach_across(a.port, b.port, "rc:", 24);
  // The rooms' keys sit on more than one master.
  EXPECT_GE(rc.masters_holding_keys(), 2);
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

// The room's slot moves to another master the way redis-cli --cluster
// reshard moves it, one step at a time, while subscribers listen and a
// publisher publishes through heraldd:
//   1. SETSLOT IMPORTING on the target, MIGRATING on the source, MIGRATE the
//      room's keys: the source answers ASK, heraldd sends ASKING + the
//      command to the target, and keeps its map (every publish asks again);
//   2. SETSLOT NODE on every master: the source answers MOVED, heraldd moves
//      the slot in its map, and later publishes go straight to the target.
// Offsets continue, each publication is delivered once, nobody is reset,
// nothing restarts. A node allowed no redirection says so (114).
TEST(RedisClusterMode, ARoomFollowsItsSlotToAnotherMasterThroughAskAndMoved) {
  RedisCluster rc;
  const std::string room = "mv:1";
  const std::string meta = "herald:{" + room + "}:m";
  const std::uint16_t slot = redis::key_slot(meta);
  RedisServer* source = rc.owner(slot);
  ASSERT_TRUE(source != nullptr);
  RedisServer* target = rc.other(source);

  const std::vector<std::string> extra = {"--cluster.redis.topology",     "cluster",
                                          "--cluster.presence_ttl",       "1h",
                                          "--cluster.heartbeat_interval", "10m"};
  Daemon a(cluster_flags(rc.nodes[0]->port(), extra));
  Daemon b(cluster_flags(rc.nodes[1]->port(), extra));
  std::vector<std::string> strict = extra;
  strict.insert(strict.end(), {"--cluster.redis.max_redirects", "0"});
  Daemon c(cluster_flags(rc.nodes[2]->port(), strict));
  auto sub = connect_as(b.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, room), "/result"));
  auto pub = connect_as(a.port, "p");
  auto pubc = connect_as(c.port, "pc");
  std::uint64_t next = 1;
  auto publish_next = [&](WsClient& via) {
    const double before = node_metric(a.port, "herald_cluster_redis_round_trips_total");
    auto r = publish(via, static_cast<int>(100 + next), room, std::to_string(next));
    EXPECT_EQ(json_uint(r, "/result/offset"), next) << r;
    ++next;
    return node_metric(a.port, "herald_cluster_redis_round_trips_total") - before;
  };
  EXPECT_EQ(publish_next(*pub), 1);  // the scripts were loaded when the node connected
  EXPECT_EQ(publish_next(*pub), 1);
  EXPECT_EQ(publish_next(*pubc), 0);  // through c, which follows no redirection: none needed yet

  // 1. Migrating: the keys are on the target, the slot still the source's.
  rc.start_migration(slot, *source, *target);
  EXPECT_EQ(source->command({"EXISTS", meta}).integer, 0);
  // ASK: the source, then ASKING + the publish on the target; the map is
  // not changed, so the next publish asks again: two round trips each.
  EXPECT_EQ(publish_next(*pub), 2);
  EXPECT_EQ(publish_next(*pub), 2);
  EXPECT_EQ(publish_next(*pub), 2);
  // A subscribe during the migration reads the history on the target too.
  auto late = connect_as(a.port, "late");
  auto r = subscribe(*late, 2, room);
  ASSERT_TRUE(json_has(r, "/result")) << r;
  EXPECT_EQ(json_uint(r, "/result/offset"), next - 1) << r;

  // 2. The slot is the target's: MOVED.
  rc.end_migration(slot, *target);
  // MOVED from the source, the map re-read (CLUSTER SLOTS), the target.
  EXPECT_EQ(publish_next(*pub), 3);
  EXPECT_EQ(publish_next(*pub), 1);  // the map has the slot on the target now
  EXPECT_EQ(publish_next(*pub), 1);
  EXPECT_EQ(target->command({"HGET", meta, "top"}).str, std::to_string(next - 1));
  // c follows no redirection: its publish fails plainly, naming the limit.
  auto refused = publish(*pubc, 900, room, "\"x\"");
  EXPECT_EQ(json_uint(refused, "/error/code"), 114u) << refused;
  EXPECT_NE(refused.find("cluster.redis.max_redirects"), std::string::npos) << refused;

  // Every publication reached the subscriber once, in order, without a reset.
  for (std::uint64_t offset = 1; offset < next; ++offset) {
    auto m = next_pub(*sub);
    ASSERT_TRUE(m) << "offset " << offset << " missing";
    EXPECT_EQ(json_uint(*m, "/pub/offset"), offset) << *m;
    EXPECT_EQ(json_raw(*m, "/pub/data"), std::to_string(offset)) << *m;
  }
  EXPECT_EQ(node_metric(b.port, "herald_cluster_stream_resets_total"), 0);
  // The late subscriber got the publications after its subscribe, live.
  auto m = next_pub(*late);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_uint(*m, "/pub/offset"), next - 3) << *m;
}

// The node registry's hash (herald:nodes) moves like a room: once its slot
// is another master's, heartbeats follow the MOVED there and keep the
// node's entry alive (they would fail on the old owner forever otherwise).
TEST(RedisClusterMode, TheNodeRegistryFollowsItsSlotToAnotherMaster) {
  RedisCluster rc;
  const std::string key = "herald:nodes";
  const std::uint16_t slot = redis::key_slot(key);
  RedisServer* source = rc.owner(slot);
  ASSERT_TRUE(source != nullptr);
  RedisServer* target = rc.other(source);
  Daemon a(cluster_flags(rc.nodes[0]->port(),
                         {"--cluster.redis.topology", "cluster", "--cluster.node_id", "n1",
                          "--cluster.heartbeat_interval", "50ms", "--cluster.node_ttl", "1s"}));
  ASSERT_TRUE(eventually([&] { return !source->command({"HGET", key, "n1"}).is_nil(); }));
  rc.start_migration(slot, *source, *target);
  rc.end_migration(slot, *target);
  // The entry on the target keeps being rewritten by heartbeats (its
  // expiry moves on) past node_ttl: one of them is written after the entry
  // first seen there would have expired.
  const std::string moved = target->command({"HGET", key, "n1"}).str;
  ASSERT_FALSE(moved.empty());
  const auto first = gateway::broker::redis_schema::parse_node_value(moved);
  ASSERT_TRUE(first) << moved;
  std::string entry;
  EXPECT_TRUE(eventually([&] {
    entry = target->command({"HGET", key, "n1"}).str;
    auto v = gateway::broker::redis_schema::parse_node_value(entry);
    return v && v->expires_ms > first->expires_ms + 1000;  // + node_ttl: written after it expired
  })) << "first "
      << moved << ", last " << entry;
}

// A master that joined the cluster after heraldd started (redis-cli
// --cluster add-node) gets a room's slot: the MOVED names a master heraldd
// has no connection to; it connects, and the publish goes on there.
TEST(RedisClusterMode, ARoomMovedToAMasterAddedAfterStartUpFollowsIt) {
  RedisCluster rc;
  const std::string room = "mv:new";
  const std::uint16_t slot = redis::key_slot("herald:{" + room + "}:m");
  const std::vector<std::string> extra = {"--cluster.redis.topology", "cluster"};
  Daemon a(cluster_flags(rc.nodes[0]->port(), extra));
  Daemon b(cluster_flags(rc.nodes[1]->port(), extra));
  auto sub = connect_as(b.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, room), "/result"));
  auto pub = connect_as(a.port, "p");
  ASSERT_EQ(json_uint(publish(*pub, 3, room, "1"), "/result/offset"), 1u);
  RedisServer* source = rc.owner(slot);
  ASSERT_TRUE(source != nullptr);
  RedisServer* fresh = rc.add_master();
  rc.start_migration(slot, *source, *fresh);
  rc.end_migration(slot, *fresh);
  for (std::uint64_t offset = 2; offset <= 3; ++offset) {
    auto r = publish(*pub, static_cast<int>(10 + offset), room, std::to_string(offset));
    EXPECT_EQ(json_uint(r, "/result/offset"), offset) << r;
  }
  EXPECT_EQ(fresh->command({"HGET", "herald:{" + room + "}:m", "top"}).str, "3");
  for (std::uint64_t offset = 1; offset <= 3; ++offset) {
    auto m = next_pub(*sub);
    ASSERT_TRUE(m) << "offset " << offset << " missing";
    EXPECT_EQ(json_uint(*m, "/pub/offset"), offset) << *m;
  }
}

// Every connection to a Redis Cluster authenticates: the CLUSTER SLOTS read
// at start-up and each master's command and pub/sub connections (rooms on
// every master work). A wrong password stops start-up at the slot read.
TEST(RedisClusterMode, AnAclUserAuthenticatesToEveryMaster) {
  RedisCluster rc(
      {"--user", "alice", "on", ">alice-pw", "~*", "&*", "+@all", "--user", "default", "off"},
      {"alice", "alice-pw"});
  const std::vector<std::string> extra = {"--cluster.redis.topology", "cluster",
                                          "--cluster.redis.username", "alice",
                                          "--cluster.redis.password", "alice-pw"};
  Daemon a(cluster_flags(rc.nodes[0]->port(), extra));
  Daemon b(cluster_flags(rc.nodes[1]->port(), extra));
  (void)expect_rooms_reach_across(a.port, b.port, "auth:", 24);
  EXPECT_GE(rc.masters_holding_keys(), 2);

  auto wrong = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--cluster.mode", "redis",
                    "--cluster.redis.topology", "cluster", "--cluster.redis.address",
                    "127.0.0.1:" + std::to_string(rc.nodes[2]->port()), "--cluster.redis.username",
                    "alice", "--cluster.redis.password", "not-it"});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("cluster.redis.password"), std::string::npos) << wrong.output;
  EXPECT_NE(wrong.output.find("WRONGPASS"), std::string::npos) << wrong.output;
  EXPECT_EQ(wrong.output.find("not-it"), std::string::npos) << wrong.output;
  auto none = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--cluster.mode", "redis",
                   "--cluster.redis.topology", "cluster", "--cluster.redis.address",
                   "127.0.0.1:" + std::to_string(rc.nodes[2]->port())});
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("cluster.redis.password: redis at"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("NOAUTH"), std::string::npos) << none.output;
}

// docs/cluster.md: a command follows at most cluster.redis.max_redirects
// redirections (5 by default) and then fails with error 114 naming the limit
// and the last redirection. A real cluster settles, so the loop comes from
// RedirectingRedis, in front of a real Redis: it answers a room's publish
// MOVED to itself as many times as armed, and counts the publishes it gets.
TEST(RedisClusterMode, ACommandFollowsFiveRedirectionsAndFailsOnTheSixth) {
  RedisServer redis;
  RedirectingRedis injector(redis.port());
  Daemon a(cluster_flags(injector.port(), {"--cluster.redis.topology", "cluster",
                                           "--cluster.heartbeat_interval", "10m"}));
  const std::string room = "loop:1";
  const std::string meta = "herald:{" + room + "}:m";
  auto p = connect_as(a.port, "p");
  // Once unredirected: the script is in Redis's cache from here on, so each
  // publish is one script call.
  ASSERT_EQ(json_uint(publish(*p, 2, room, "1"), "/result/offset"), 1u);

  // Redirected five times: followed, and published.
  injector.redirect(meta, redis::key_slot(meta), 5);
  auto r = publish(*p, 3, room, "2");
  EXPECT_EQ(json_uint(r, "/result/offset"), 2u) << r;
  EXPECT_EQ(injector.received(), 6);  // the first send and five redirections
  EXPECT_EQ(redis.command({"HGET", meta, "top"}).str, "2");

  // Redirected for ever: the sixth redirection is not followed.
  injector.redirect(meta, redis::key_slot(meta), 1'000);
  r = publish(*p, 4, room, "3");
  EXPECT_EQ(json_uint(r, "/error/code"), 114u) << r;
  EXPECT_THAT(r,
              ::testing::HasSubstr("redirected more than 5 times (cluster.redis.max_redirects)"));
  EXPECT_THAT(r, ::testing::HasSubstr("last: MOVED " + std::to_string(redis::key_slot(meta)) +
                                      " 127.0.0.1:" + std::to_string(injector.port())));
  EXPECT_EQ(injector.received(), 6);
  EXPECT_EQ(redis.command({"HGET", meta, "top"}).str, "2");
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
