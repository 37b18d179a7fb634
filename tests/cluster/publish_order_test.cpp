// One connection's publications to one room get offsets in the order the
// connection sent them, in every cluster topology (docs/cluster.md,
// "Order"). The publisher pipelines: every publication of a burst is sent
// before any reply is read, so many are in flight at once, into rooms that
// have never been published to (their first publication: the room's epoch
// is created, and on a fresh Redis the scripts were never run) and into
// warm ones. The checks read the offsets from the replies and from a
// subscriber on the other node, and compare them with the send order.
//
// What broke it once: a publish script answered NOSCRIPT was sent again as
// EVAL, and a later publication of the same connection, sent in between,
// ran first as soon as another EVAL had loaded the script (redis/client.hpp).
// Later ones to watch: a MOVED followed while newer commands of the slot go
// straight to the new owner (redis/router.hpp), a hook's answers arriving
// out of order (tests/gateway/proxy_room_test.cpp pins that one).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cluster_support.hpp"
#include "gateway/broker/redis_schema.hpp"
#include "redis/cluster_slots.hpp"
#include "redis_cluster.hpp"

namespace herald::test {
namespace {

// Room -> the offsets its publications got, in send order (0: refused).
using Offsets = std::map<std::string, std::vector<std::uint64_t>>;

struct Burst {
  Offsets offsets;
  std::vector<std::string> errors;  // the refusals' replies
};

// Sends `rounds` publications to each of `rooms` (round-robin, data {"n":k}),
// all before reading a reply, then collects every reply.
Burst publish_burst(WsClient& c, const std::vector<std::string>& rooms, int rounds,
                    std::uint32_t& next_id) {
  std::map<std::uint32_t, std::pair<std::string, std::size_t>> sent;  // id -> room, index
  Burst burst;
  for (int k = 0; k < rounds; ++k) {
    for (const auto& room : rooms) {
      const std::uint32_t id = next_id++;
      auto& list = burst.offsets[room];
      sent[id] = {room, list.size()};
      list.push_back(0);
      c.send(R"({"id":)" + std::to_string(id) + R"(,"publish":{"room":")" + room +
             R"(","data":{"n":)" + std::to_string(k) + "}}}");
    }
  }
  std::size_t answered = 0;
  while (answered < sent.size()) {
    auto m = c.next(std::chrono::seconds(10));
    if (!m) {
      ADD_FAILURE() << "only " << answered << " of " << sent.size() << " publishes answered";
      break;
    }
    auto id = json_uint(*m, "/id");
    if (!id || !sent.contains(static_cast<std::uint32_t>(*id))) continue;  // a push
    const auto& [room, index] = sent[static_cast<std::uint32_t>(*id)];
    ++answered;
    if (auto offset = json_uint(*m, "/result/offset")) {
      burst.offsets[room][index] = *offset;
    } else {
      burst.errors.push_back(*m);
    }
  }
  return burst;
}

// Each room's offsets rise in send order, with no gap between the accepted
// ones (the stream holds nothing else); a room given `fresh` starts at 1.
void expect_send_order(const Burst& burst, const std::map<std::string, std::uint64_t>& base) {
  for (const auto& [room, offsets] : burst.offsets) {
    std::uint64_t want = base.contains(room) ? base.at(room) + 1 : 1;
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      if (offsets[k] == 0) continue;
      EXPECT_EQ(offsets[k], want) << room << ": publication " << k << " of the burst";
      want = offsets[k] + 1;
    }
  }
}

// The subscriber got every accepted publication of `rooms`, each room's in
// offset order with rising data: what the replies said, seen from the
// other node.
void expect_delivered_in_order(WsClient& sub, const Burst& burst) {
  std::size_t accepted = 0;
  for (const auto& [room, offsets] : burst.offsets)
    for (auto o : offsets) accepted += o != 0 ? 1 : 0;
  std::map<std::string, std::pair<std::uint64_t, std::int64_t>> last;  // room -> offset, n
  for (std::size_t i = 0; i < accepted; ++i) {
    auto m = next_pub(sub, std::chrono::seconds(10));
    ASSERT_TRUE(m) << "delivered " << i << " of " << accepted;
    const std::string room = json_str(*m, "/pub/room").value_or("");
    const std::uint64_t offset = json_uint(*m, "/pub/offset").value_or(0);
    const auto n = static_cast<std::int64_t>(json_uint(*m, "/pub/data/n").value_or(0));
    auto it = last.find(room);
    if (it != last.end()) {
      EXPECT_EQ(offset, it->second.first + 1) << *m;
      EXPECT_GT(n, it->second.second) << "sent earlier, offset later: " << *m;
    }
    last[room] = {offset, n};
  }
}

std::vector<std::string> names(const std::string& prefix, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::map<std::string, std::uint64_t> tops(const Burst& burst) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [room, offsets] : burst.offsets)
    for (auto o : offsets) out[room] = std::max(out[room], o);
  return out;
}

const std::vector<std::string> kPipelined = {"--client.publish_rate", "100000",
                                             "--client.command_rate", "100000"};

std::vector<std::string> flags_with(std::vector<std::string> extra) {
  extra.insert(extra.end(), kPipelined.begin(), kPipelined.end());
  return extra;
}

// A subscriber on `to` of every room, then a publisher on `from` sending a
// burst into fresh rooms (half of them subscribed, so with an epoch; half
// never touched) and then a burst into the same rooms, warm.
void fresh_then_warm(std::uint16_t from, std::uint16_t to) {
  const auto watched = names("ord:w", 6);
  const auto untouched = names("ord:u", 6);
  auto sub = connect_as(to, "s");
  std::uint32_t id = 10;
  for (const auto& room : watched) ASSERT_TRUE(json_has(subscribe(*sub, id++, room), "/result"));
  auto pub = connect_as(from, "p");
  std::vector<std::string> rooms = watched;
  rooms.insert(rooms.end(), untouched.begin(), untouched.end());
  Burst first = publish_burst(*pub, rooms, 20, id);
  EXPECT_TRUE(first.errors.empty()) << first.errors.front();
  expect_send_order(first, {});
  Burst watched_part;
  for (const auto& room : watched) watched_part.offsets[room] = first.offsets[room];
  expect_delivered_in_order(*sub, watched_part);

  Burst warm = publish_burst(*pub, rooms, 20, id);
  EXPECT_TRUE(warm.errors.empty()) << warm.errors.front();
  expect_send_order(warm, tops(first));
  for (const auto& room : untouched) warm.offsets.erase(room);
  expect_delivered_in_order(*sub, warm);
}

TEST(PublishOrder, PipelinedFirstAndWarmPublicationsKeepSendOrderOverOneRedis) {
  RedisServer redis;  // fresh: its script cache is empty
  Daemon a(cluster_flags(redis.port(), kPipelined)), b(cluster_flags(redis.port(), kPipelined));
  fresh_then_warm(a.port, b.port);
  // Every publication, the very first ones too, was one EVALSHA that hit:
  // the scripts were loaded when the nodes connected.
  EXPECT_EQ(redis.calls("eval"), 0);
}

// SCRIPT FLUSH on a live connection: the publications that meet the empty
// cache did not run and are refused (114, saying so); none is run behind a
// later one, so the accepted ones keep their order, and once the scripts
// are loaded again everything is accepted.
TEST(PublishOrder, AScriptFlushRefusesWhatItCaughtAndReordersNothing) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port(), kPipelined)), b(cluster_flags(redis.port(), kPipelined));
  const auto rooms = names("ord:f", 4);
  auto sub = connect_as(b.port, "s");
  std::uint32_t id = 10;
  for (const auto& room : rooms) ASSERT_TRUE(json_has(subscribe(*sub, id++, room), "/result"));
  auto pub = connect_as(a.port, "p");
  Burst before = publish_burst(*pub, rooms, 5, id);
  ASSERT_TRUE(before.errors.empty());
  expect_delivered_in_order(*sub, before);

  std::thread flusher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    redis.command({"SCRIPT", "FLUSH"});
  });
  Burst during = publish_burst(*pub, rooms, 100, id);
  flusher.join();
  for (const auto& e : during.errors) {
    EXPECT_EQ(json_uint(e, "/error/code"), 114u) << e;
    EXPECT_NE(e.find("SCRIPT FLUSH"), std::string::npos) << e;
  }
  expect_send_order(during, tops(before));
  expect_delivered_in_order(*sub, during);
  // Nothing was sent again as EVAL behind later commands.
  EXPECT_EQ(redis.calls("eval"), 0);

  // A flush that came after the burst's last publish has not been met
  // yet: a probe in a room of its own meets it, and the node loads its
  // scripts again.
  ASSERT_TRUE(eventually([&] {
    (void)publish(*pub, id++, "ord:probe", "0");
    auto exists =
        redis.command({"SCRIPT", "EXISTS", gateway::broker::redis_schema::kPublishScript.sha()});
    return exists.elements.size() == 1 && exists.elements[0].integer == 1;
  }));
  Burst after = publish_burst(*pub, rooms, 5, id);
  EXPECT_TRUE(after.errors.empty()) << after.errors.front();
  auto top = tops(before);
  for (const auto& [room, t] : tops(during)) top[room] = std::max(top[room], t);
  expect_send_order(after, top);
}

TEST(PublishOrder, PipelinedPublicationsKeepSendOrderOverServersByConsistentHash) {
  RedisServer r1, r2;
  const std::string shards =
      "127.0.0.1:" + std::to_string(r1.port()) + ", 127.0.0.1:" + std::to_string(r2.port());
  const auto flags = flags_with({"--cluster.redis.shards", shards});
  Daemon a(cluster_flags(r1.port(), flags)), b(cluster_flags(r1.port(), flags));
  fresh_then_warm(a.port, b.port);
  // Both servers hold rooms: the bursts crossed both.
  EXPECT_GT(r1.command({"DBSIZE"}).integer, 0);
  EXPECT_GT(r2.command({"DBSIZE"}).integer, 0);
}

const std::vector<std::string> kClusterFlags = {"--cluster.redis.topology",     "cluster",
                                                "--cluster.presence_ttl",       "1h",
                                                "--cluster.heartbeat_interval", "10m"};

TEST(PublishOrder, PipelinedPublicationsKeepSendOrderOverARedisCluster) {
  RedisCluster rc;
  const auto flags = flags_with(kClusterFlags);
  Daemon a(cluster_flags(rc.nodes[0]->port(), flags)), b(cluster_flags(rc.nodes[1]->port(), flags));
  fresh_then_warm(a.port, b.port);
  EXPECT_EQ(rc.masters_holding_keys(), 3);
  for (const auto& node : rc.nodes) EXPECT_EQ(node->calls("eval"), 0) << node->port();
}

// The room's slot moves to another master while bursts are in flight:
// publications already sent to the old owner come back MOVED (or ASK) and
// go again to the new one, and those sent after the node learnt the move
// must not overtake them.
//
// The node's channel stays on the master that joined it, so around a move
// the live messages come partly straight from it and partly over the
// cluster bus from the other, and may cross: the node reads the gap from
// the history, which must hold a whole burst (else it resets the room,
// which is telling, not a failure of order; docs/cluster.md).
TEST(PublishOrder, PublicationsInFlightWhenTheirSlotMovesKeepSendOrder) {
  RedisCluster rc;
  std::vector<std::string> extra = kClusterFlags;
  extra.insert(extra.end(), {"--rooms.history_size", "10000"});
  const auto flags = flags_with(extra);
  Daemon a(cluster_flags(rc.nodes[0]->port(), flags)), b(cluster_flags(rc.nodes[1]->port(), flags));
  const std::string room = "ord:moving";
  const std::uint16_t slot = redis::key_slot("herald:{" + room + "}:m");
  auto sub = connect_as(b.port, "s");
  std::uint32_t id = 10;
  ASSERT_TRUE(json_has(subscribe(*sub, id++, room), "/result"));
  auto pub = connect_as(a.port, "p");
  std::map<std::string, std::uint64_t> top;
  // Tracked here rather than read back from a node, whose view of the map
  // may lag a SETSLOT on a loaded machine.
  RedisServer* source = rc.owner(slot);
  ASSERT_TRUE(source != nullptr);
  for (int move = 0; move < 4; ++move) {
    RedisServer* target = rc.other(source);
    std::thread mover([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      rc.start_migration(slot, *source, *target);
      // A migration that failed half-way must not hand the slot over
      // without its keys.
      if (!::testing::Test::HasFatalFailure()) rc.end_migration(slot, *target);
    });
    Burst burst = publish_burst(*pub, {room}, 300, id);
    mover.join();
    // Redis answers TRYAGAIN to a command of a slot whose keys are half
    // migrated; such a publish did not run and is refused (114).
    for (const auto& e : burst.errors) EXPECT_NE(e.find("TRYAGAIN"), std::string::npos) << e;
    expect_send_order(burst, top);
    expect_delivered_in_order(*sub, burst);
    if (HasFailure()) return;
    top = tops(burst);
    source = target;
  }
  EXPECT_EQ(node_metric(b.port, "herald_cluster_stream_resets_total"), 0);
}

}  // namespace
}  // namespace herald::test
