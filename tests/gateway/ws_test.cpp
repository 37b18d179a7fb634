// The WebSocket protocol end to end, against heraldd as a real process with
// two shards: pub/sub across shards, recovery, history, presence, errors.
#include <signal.h>

#include <thread>

#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(Gateway, PublishReachesSubscribersOnBothShards) {
  Daemon d;
  ASSERT_NE(d.port, 0);
  // Consecutive connections are dealt to shards round-robin, so a and b
  // live on different shards.
  auto a = connect_as(d.port, "alice");
  auto b = connect_as(d.port, "bob");
  auto pa = json_uint(subscribe(*a, 2, "chat:lobby"), "/result/offset");
  auto pb = json_uint(subscribe(*b, 2, "chat:lobby"), "/result/offset");
  EXPECT_EQ(pa, 0u);
  EXPECT_EQ(pb, 0u);
  std::deque<std::string> pushes;
  auto reply =
      request(*a, 3, R"({"id":3,"publish":{"room":"chat:lobby","data":{"text":"hi"}}})", &pushes);
  ASSERT_TRUE(reply);
  EXPECT_EQ(json_uint(*reply, "/result/offset"), 1u);
  auto epoch = json_str(*reply, "/result/epoch");
  ASSERT_TRUE(epoch);
  // The publisher is a subscriber too: it gets its own publication.
  if (pushes.empty()) pushes.push_back(a->next().value_or(""));
  for (const std::string& m : {pushes.front(), b->next().value_or("")}) {
    EXPECT_EQ(json_str(m, "/pub/room"), "chat:lobby") << m;
    EXPECT_EQ(json_uint(m, "/pub/offset"), 1u);
    EXPECT_EQ(json_str(m, "/pub/epoch"), epoch);
    EXPECT_EQ(json_raw(m, "/pub/data"), R"({"text":"hi"})");
    EXPECT_EQ(json_str(m, "/pub/info/user"), "alice");
  }
}

TEST(Gateway, CommandsNeedConnectFirst) {
  Daemon d;
  WsClient c("127.0.0.1", d.port);
  auto r = request(c, 5, R"({"id":5,"subscribe":{"room":"x"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(json_uint(*r, "/error/code"), 101u);
  auto again = request(c, 6, R"({"id":6,"connect":{"user":"u"}})");
  EXPECT_TRUE(again && json_has(*again, "/result/client"));
  auto twice = request(c, 7, R"({"id":7,"connect":{"user":"u"}})");
  EXPECT_EQ(json_uint(twice.value_or(""), "/error/code"), 112u);
}

TEST(Gateway, RecoveryReplaysExactlyTheGapThenGoesLive) {
  Daemon d;
  auto pub = connect_as(d.port, "pub");
  auto sub = connect_as(d.port, "sub");
  std::string first = subscribe(*sub, 2, "chat:r");
  auto epoch = json_str(first, "/result/epoch");
  ASSERT_TRUE(epoch);
  for (int i = 1; i <= 3; ++i) publish(*pub, 10 + i, "chat:r", std::to_string(i));
  std::uint64_t last = 0;
  for (int i = 1; i <= 3; ++i)
    last = json_uint(sub->next().value_or(""), "/pub/offset").value_or(0);
  EXPECT_EQ(last, 3u);
  sub.reset();  // the subscriber drops off
  for (int i = 4; i <= 8; ++i) publish(*pub, 10 + i, "chat:r", std::to_string(i));

  auto back = connect_as(d.port, "sub");
  std::string since = R"({"epoch":")" + *epoch + R"(","offset":3})";
  std::string reply = subscribe(*back, 2, "chat:r", since);
  EXPECT_EQ(json_bool(reply, "/result/recovered"), true) << reply;
  EXPECT_EQ(json_uint(reply, "/result/offset"), 8u);
  ASSERT_EQ(json_size(reply, "/result/publications"), 5u) << reply;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(json_uint(reply, "/result/publications/" + std::to_string(i) + "/offset"),
              static_cast<std::uint64_t>(4 + i));
    EXPECT_EQ(json_raw(reply, "/result/publications/" + std::to_string(i) + "/data"),
              std::to_string(4 + i));
  }
  publish(*pub, 30, "chat:r", "9");
  auto live = back->next();
  ASSERT_TRUE(live);
  EXPECT_EQ(json_uint(*live, "/pub/offset"), 9u);
  // A duplicate would come before a later publication: the next one is
  // what arrives next.
  publish(*pub, 31, "chat:r", "10");
  auto later = back->next();
  ASSERT_TRUE(later);
  EXPECT_EQ(json_uint(*later, "/pub/offset"), 10u) << "a duplicate arrived: " << *later;
}

// docs/protocol.md, delivery guarantees: history lives in memory, so a
// restarted heraldd starts the room with a new epoch, and a client that
// recovers across the restart is told so rather than shown a silent hole.
TEST(Gateway, ARestartStartsTheRoomWithANewEpochAndRecoverySaysNotRecovered) {
  std::string epoch;
  {
    Daemon before;
    auto c = connect_as(before.port, "a");
    subscribe(*c, 2, "chat:r");
    auto r = publish(*c, 3, "chat:r", "1");
    epoch = json_str(r, "/result/epoch").value_or("");
    ASSERT_FALSE(epoch.empty()) << r;
  }
  Daemon after;
  auto c = connect_as(after.port, "a");
  auto reply = subscribe(*c, 2, "chat:r", R"({"epoch":")" + epoch + R"(","offset":1})");
  EXPECT_EQ(json_bool(reply, "/result/recovered"), false) << reply;
  EXPECT_NE(json_str(reply, "/result/epoch").value_or(""), epoch) << reply;
  EXPECT_EQ(json_uint(reply, "/result/offset"), 0u) << reply;
}

TEST(Gateway, RecoveryOutsideTheWindowSaysSoPlainly) {
  Daemon d({"--rooms.history_size", "3"});
  auto pub = connect_as(d.port, "pub");
  auto sub = connect_as(d.port, "sub");
  auto epoch = json_str(subscribe(*sub, 2, "r"), "/result/epoch");
  ASSERT_TRUE(epoch);
  for (int i = 1; i <= 6; ++i) publish(*pub, 10 + i, "r", std::to_string(i));
  // Offsets 1..6 were published; the ring holds 4..6; the client saw 1.
  std::string reply = subscribe(*pub, 3, "r", R"({"epoch":")" + *epoch + R"(","offset":1})");
  EXPECT_EQ(json_bool(reply, "/result/recovered"), false) << reply;
  EXPECT_EQ(json_size(reply, "/result/publications"), 0u);
  EXPECT_EQ(json_uint(reply, "/result/offset"), 6u);
  // Inside the window (saw 3): recovered with exactly 4..6.
  auto c = connect_as(d.port, "c");
  reply = subscribe(*c, 2, "r", R"({"epoch":")" + *epoch + R"(","offset":3})");
  EXPECT_EQ(json_bool(reply, "/result/recovered"), true);
  EXPECT_EQ(json_size(reply, "/result/publications"), 3u);
  // Another epoch: not recovered, whatever the offset.
  auto e = connect_as(d.port, "e");
  reply = subscribe(*e, 2, "r", R"({"epoch":"ffffffff","offset":5})");
  EXPECT_EQ(json_bool(reply, "/result/recovered"), false);
}

TEST(Gateway, HistoryLimitReverseSince) {
  Daemon d;
  auto c = connect_as(d.port, "u");
  for (int i = 1; i <= 5; ++i) publish(*c, 10 + i, "h", std::to_string(i));
  auto all = request(*c, 20, R"({"id":20,"history":{"room":"h"}})").value_or("");
  EXPECT_EQ(json_size(all, "/result/publications"), 5u) << all;
  auto epoch = json_str(all, "/result/epoch").value_or("");
  auto rev =
      request(*c, 21, R"({"id":21,"history":{"room":"h","limit":2,"reverse":true}})").value_or("");
  EXPECT_EQ(json_uint(rev, "/result/publications/0/offset"), 5u);
  EXPECT_EQ(json_uint(rev, "/result/publications/1/offset"), 4u);
  EXPECT_EQ(json_size(rev, "/result/publications"), 2u);
  auto since =
      request(*c, 22,
              R"({"id":22,"history":{"room":"h","since":{"epoch":")" + epoch + R"(","offset":3}}})")
          .value_or("");
  EXPECT_EQ(json_size(since, "/result/publications"), 2u);
  EXPECT_EQ(json_uint(since, "/result/publications/0/offset"), 4u);
  auto stale =
      request(*c, 23, R"({"id":23,"history":{"room":"h","since":{"epoch":"x","offset":3}}})")
          .value_or("");
  EXPECT_EQ(json_uint(stale, "/error/code"), 107u);
}

TEST(Gateway, PresenceAndJoinLeave) {
  std::string conf = write_temp_file("presence.toml", R"(
[namespaces.team]
join_leave = true
)");
  Daemon d({"--config", conf});
  auto a = connect_as(d.port, "alice");
  auto b = connect_as(d.port, "bob");
  subscribe(*a, 2, "team:x");
  subscribe(*b, 2, "team:x");
  auto join = a->next();
  ASSERT_TRUE(join);
  EXPECT_EQ(json_str(*join, "/join/room"), "team:x");
  EXPECT_EQ(json_str(*join, "/join/info/user"), "bob");
  auto p = request(*a, 3, R"({"id":3,"presence":{"room":"team:x"}})").value_or("");
  EXPECT_EQ(json_size(p, "/result/clients"), 2u) << p;
  auto stats = request(*a, 4, R"({"id":4,"presence_stats":{"room":"team:x"}})").value_or("");
  EXPECT_EQ(json_uint(stats, "/result/clients"), 2u);
  EXPECT_EQ(json_uint(stats, "/result/users"), 2u);
  request(*b, 5, R"({"id":5,"unsubscribe":{"room":"team:x"}})");
  auto leave = a->next();
  ASSERT_TRUE(leave);
  EXPECT_EQ(json_str(*leave, "/leave/info/user"), "bob");
  // Rooms outside the namespace use [rooms]: no join/leave there.
  subscribe(*a, 6, "other");
  subscribe(*b, 6, "other");
  // A join would reach `a` before b's publication that follows it.
  publish(*b, 7, "other", "1");
  auto m = a->next();
  ASSERT_TRUE(m);
  EXPECT_TRUE(json_has(*m, "/pub")) << "a join or leave where there are none: " << *m;
}

TEST(Gateway, BatchedCommandsInOneFrameAndCoalescedPushes) {
  Daemon d({"--client.write_delay", "50ms", "--client.publish_rate", "1000"});
  auto sub = connect_as(d.port, "sub");
  auto pub = connect_as(d.port, "pub");
  subscribe(*sub, 2, "fast");
  std::string frame;
  for (int i = 1; i <= 50; ++i) {
    frame += R"({"id":)" + std::to_string(100 + i) + R"(,"publish":{"room":"fast","data":)" +
             std::to_string(i) + "}}\n";
  }
  pub->send(frame);
  std::size_t before = sub->frames();
  for (int i = 1; i <= 50; ++i) {
    auto m = sub->next();
    ASSERT_TRUE(m);
    EXPECT_EQ(json_uint(*m, "/pub/offset"), static_cast<std::uint64_t>(i));
  }
  // Structural, not timing: 50 publications arrived in far fewer frames.
  EXPECT_LT(sub->frames() - before, 50u);
  // All 50 replies came back to the publisher, in whatever batching.
  int replies = 0;
  while (replies < 50) {
    auto m = pub->next();
    ASSERT_TRUE(m);
    if (json_has(*m, "/result/offset")) ++replies;
  }
}

TEST(Gateway, MetricsCountTheTraffic) {
  Daemon d({"--client.publish_rate", "1000"});
  auto sub = connect_as(d.port, "sub");
  auto pub = connect_as(d.port, "pub");
  subscribe(*sub, 2, "m");
  std::string frame;
  for (int i = 1; i <= 20; ++i)
    frame += R"({"id":)" + std::to_string(100 + i) + R"(,"publish":{"room":"m","data":1}})" + "\n";
  pub->send(frame);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(sub->next());
  // Let the publisher's replies flush too before reading the counters.
  for (int got = 0; got < 20;) {
    auto m = pub->next();
    ASSERT_TRUE(m);
    if (json_has(*m, "/result/offset")) ++got;
  }
  // A write's counters move when its completion runs on the server, which
  // can be after the client has read the bytes (and the scrape may run on
  // another shard first): poll until the last write is counted.
  std::string text;
  for (int tries = 0; tries < 100; ++tries) {
    text = http_get("127.0.0.1", d.port, "/metrics").body;
    if (metric_value(text, "herald_messages_out_total") >= 43 &&
        metric_value(text, "herald_queue_bytes") == 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(metric_value(text, "herald_ws_connections"), 2);
  EXPECT_EQ(metric_value(text, "herald_subscriptions"), 1);
  EXPECT_EQ(metric_value(text, "herald_publications_total"), 20);
  // 20 pushes + 20 replies + connect/subscribe replies went out in fewer
  // writes than messages: the coalescing, counted.
  double out = metric_value(text, "herald_messages_out_total");
  double batches = metric_value(text, "herald_write_batches_total");
  EXPECT_GE(out, 43);
  EXPECT_LT(batches, out);
  EXPECT_GE(metric_value(text, "herald_publish_to_write_seconds_count"), 1);
  EXPECT_EQ(metric_value(text, "herald_queue_bytes"), 0);
  EXPECT_EQ(metric_value(text, "herald_slow_consumer_disconnects_total"), 0);
}

TEST(Gateway, ShutdownTellsClientsToReconnect) {
  Daemon d;
  auto c = connect_as(d.port, "u");
  subscribe(*c, 2, "r");
  // Sent the moment the port is known: heraldd catches SIGTERM from before
  // it logs "listening", so even this early the clients are drained.
  d.proc->signal(SIGTERM);
  auto m = c->next();
  ASSERT_TRUE(m) << "exit " << d.proc->wait_exit(10s).value_or(-1) << "\n" << d.proc->output();
  EXPECT_EQ(*m, R"({"disconnect":{"code":3001,"reason":"shutdown","reconnect":true}})");
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 3001);
  EXPECT_EQ(d.proc->wait_exit(10s), 0);
}

}  // namespace
}  // namespace herald::test
