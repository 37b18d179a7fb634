// Cluster mode end to end: heraldd nodes over one real redis-server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iterator>
#include <set>

#include "cluster_support.hpp"
#include "gateway/broker/redis_schema.hpp"
#include "gateway/history_checks.hpp"
#include "gateway/idempotency_checks.hpp"
#include "gateway/presence_override_checks.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/tags_checks.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

std::string protocol_frame(const std::string& room, std::uint64_t offset, const std::string& epoch,
                           const std::string& data) {
  return gateway::protocol::encode_pub_push(room, offset, epoch, data, "");
}

std::string pub_data(const std::string& m) {
  return json_raw(m, "/pub/data").value_or("");
}

// A since position {"epoch":...,"offset":N} from a pub push.
std::string since_of(const std::string& pub) {
  return R"({"epoch":")" + json_str(pub, "/pub/epoch").value_or("") + R"(","offset":)" +
         std::to_string(json_uint(pub, "/pub/offset").value_or(0)) + "}";
}

TEST(Cluster, APublishOnOneNodeReachesSubscribersOnAllNodes) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port())),
      c(cluster_flags(redis.port()));
  std::vector<std::unique_ptr<WsClient>> subs;
  for (const Daemon* d : {&a, &b, &c}) {
    subs.push_back(connect_as(d->port, "sub" + std::to_string(subs.size())));
    auto r = subscribe(*subs.back(), 2, "chat:x");
    ASSERT_TRUE(json_has(r, "/result")) << r;
  }
  auto pa = connect_as(a.port, "pa");
  auto pc = connect_as(c.port, "pc");
  for (int i = 0; i < 5; ++i) {
    auto r = publish(i % 2 == 0 ? *pa : *pc, 10 + i, "chat:x", std::to_string(i));
    ASSERT_TRUE(json_has(r, "/result/offset")) << r;
  }
  // Every node's subscriber sees all five, in offset order, once.
  for (auto& s : subs) {
    for (int i = 0; i < 5; ++i) {
      auto m = next_pub(*s);
      ASSERT_TRUE(m) << "publication " << i << " missing";
      EXPECT_EQ(json_uint(*m, "/pub/offset"), static_cast<std::uint64_t>(i + 1)) << *m;
      EXPECT_EQ(pub_data(*m), std::to_string(i));
    }
  }
  // Each node subscribed the room's channel once, however many subscribers.
  auto r = redis.command({"PUBSUB", "NUMSUB", "herald:{chat:x}:c"});
  ASSERT_EQ(r.elements.size(), 2u);
  EXPECT_EQ(r.elements[1].integer, 3);
}

// A room list's follow (client/room_list_follows.cpp) through the Redis
// broker: a membership the connection does not subscribe to moves with a
// publication made on another node, no publication (nor join push)
// reaches the client, and the follow takes no subscriber's place.
TEST(Cluster, ARoomListFollowsAMembershipPublishedToOnAnotherNode) {
  RedisServer redis;
  const std::string dir =
      ::testing::TempDir() + "herald-cluster-follow-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  Daemon a(cluster_flags(redis.port(),
                         {"--api.key", "k3y", "--state.dir", dir, "--rooms.max_subscribers", "1"}));
  Daemon b(cluster_flags(redis.port()));
  ASSERT_EQ(
      api_post(a.port, "/api/members_add", R"({"room":"team:ops","user":"ann"})", "k3y").status,
      200);
  auto ann = connect_as(a.port, "ann");
  auto watched = request(*ann, 2, R"({"id":2,"rooms.watch":{}})");
  ASSERT_TRUE(watched && json_has(*watched, "/result")) << watched.value_or("no reply");
  // The follow took no place: the room's one subscriber fits.
  auto carl = connect_as(a.port, "carl");
  ASSERT_TRUE(json_has(subscribe(*carl, 2, "team:ops"), "/result"));

  auto bob = connect_as(b.port, "bob");
  ASSERT_TRUE(json_has(publish(*bob, 2, "team:ops", R"({"text":"from b"})"), "/result"));
  bool shown = false;
  while (auto m = ann->next(std::chrono::seconds(5))) {
    ASSERT_FALSE(json_has(*m, "/pub")) << "a publication reached a follow: " << *m;
    if (json_has(*m, "/rooms") && m->find(R"("preview":"from b")") != std::string::npos &&
        m->find(R"("unread":1)") != std::string::npos) {
      shown = true;
      break;
    }
  }
  EXPECT_TRUE(shown) << "ann's list never showed the publication made on node b";
  // Still exactly one: carl's.
  EXPECT_EQ(node_metric(a.port, "herald_subscriptions"), 1);
  std::filesystem::remove_all(dir);
}

TEST(Cluster, ANodeLeavesARoomsChannelWithItsLastSubscriberAndJoinsItAgain) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  auto numsub = [&] {
    return redis.command({"PUBSUB", "NUMSUB", "herald:{chat:n}:c"}).elements.at(1).integer;
  };
  auto s1 = connect_as(a.port, "s1");
  auto s2 = connect_as(a.port, "s2");
  ASSERT_TRUE(json_has(subscribe(*s1, 2, "chat:n"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*s2, 2, "chat:n"), "/result"));
  EXPECT_EQ(numsub(), 1);  // two subscribers, one channel subscription
  ASSERT_TRUE(request(*s1, 3, R"({"id":3,"unsubscribe":{"room":"chat:n"}})"));
  ASSERT_TRUE(request(*s2, 3, R"({"id":3,"unsubscribe":{"room":"chat:n"}})"));
  // Back at once, while the node's UNSUBSCRIBE may still be in flight:
  // the channel is joined again and delivery works.
  ASSERT_TRUE(json_has(subscribe(*s1, 4, "chat:n"), "/result"));
  auto p = connect_as(b.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 5, "chat:n", "1"), "/result"));
  auto m = next_pub(*s1);
  ASSERT_TRUE(m);
  EXPECT_EQ(pub_data(*m), "1");
  EXPECT_EQ(numsub(), 1);
  // The last one leaves: the node unsubscribes the channel.
  ASSERT_TRUE(request(*s1, 6, R"({"id":6,"unsubscribe":{"room":"chat:n"}})"));
  EXPECT_TRUE(eventually([&] { return numsub() == 0; }));
}

// Bad input from Redis (another writer on a room's channel or presence
// hash): dropped and counted, the node keeps serving the room.
TEST(Cluster, ForeignWritesToARoomsChannelAndPresenceAreSkipped) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:f"), "/result"));
  for (const char* junk : {"hello", "p 1", "p x e {}", "e ", ""})
    redis.command({"PUBLISH", "herald:{chat:f}:c", junk});
  redis.command({"HSET", "herald:{chat:f}:p", "intruder", "not a presence value"});
  auto p = connect_as(b.port, "p");
  auto r1 = publish(*p, 3, "chat:f", "1");
  ASSERT_TRUE(json_has(r1, "/result"));
  auto m = next_pub(*sub);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_uint(*m, "/pub/offset"), 1u);
  EXPECT_EQ(node_metric(a.port, "herald_cluster_bad_messages_total"), 5);
  // Well formed, of the room's epoch, but an offset Redis never assigned:
  // one history read shows it is not real; it is dropped, and delivery
  // goes on (no endless re-reading).
  const std::string epoch = json_str(r1, "/result/epoch").value_or("");
  redis.command({"PUBLISH", "herald:{chat:f}:c",
                 "p 99 " + epoch + " " +
                     gateway::protocol::encode_pub_push("chat:f", 99, epoch, "\"fake\"", "")});
  ASSERT_TRUE(json_has(publish(*p, 4, "chat:f", "2"), "/result"));
  m = next_pub(*sub);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_uint(*m, "/pub/offset"), 2u) << *m;
  EXPECT_TRUE(
      eventually([&] { return node_metric(a.port, "herald_cluster_bad_messages_total") == 6; }));
  const double fetches = node_metric(a.port, "herald_cluster_gap_fetches_total");
  EXPECT_LE(fetches, 2);
  auto r = request(*sub, 4, R"({"id":4,"presence":{"room":"chat:f"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->find("intruder"), std::string::npos) << *r;
  EXPECT_NE(r->find("\"s\""), std::string::npos) << *r;
}

TEST(Cluster, PresenceSeesUsersOnEveryNode) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port())),
      c(cluster_flags(redis.port()));
  auto alice = connect_as(a.port, "alice");
  auto bob = connect_as(b.port, "bob");
  auto carol = connect_as(c.port, "carol");
  for (WsClient* w : {alice.get(), bob.get(), carol.get()})
    ASSERT_TRUE(json_has(subscribe(*w, 2, "chat:p"), "/result"));
  auto r = request(*carol, 3, R"({"id":3,"presence":{"room":"chat:p"}})");
  ASSERT_TRUE(r);
  EXPECT_THAT(*r, HasSubstr("\"alice\""));
  EXPECT_THAT(*r, HasSubstr("\"bob\""));
  EXPECT_THAT(*r, HasSubstr("\"carol\""));
  // join pushes crossed nodes: alice (on a) saw carol (on c) join.
  bool saw_carol = false;
  while (auto m = alice->next(std::chrono::milliseconds(2000))) {
    if (json_has(*m, "/join") && m->find("carol") != std::string::npos) {
      saw_carol = true;
      break;
    }
  }
  EXPECT_TRUE(saw_carol);
  // bob leaves: gone from presence on every node, and alice sees the leave.
  std::deque<std::string> pushes;
  ASSERT_TRUE(request(*bob, 4, R"({"id":4,"unsubscribe":{"room":"chat:p"}})"));
  EXPECT_TRUE(eventually([&] {
    auto p = request(*alice, 5, R"({"id":5,"presence":{"room":"chat:p"}})", &pushes);
    return p && p->find("\"bob\"") == std::string::npos &&
           p->find("\"carol\"") != std::string::npos;
  }));
  EXPECT_TRUE(eventually([&] {
    while (auto m = alice->next(std::chrono::milliseconds(50))) pushes.push_back(*m);
    return std::any_of(pushes.begin(), pushes.end(), [](const std::string& m) {
      return json_has(m, "/leave") && m.find("\"bob\"") != std::string::npos;
    });
  }));
}

// docs/cluster.md, "A node dies": the presence entries of a node that died
// (SIGKILL: it removes nothing on its way out) disappear from every other
// node's presence within cluster.presence_ttl, with no leave push; the
// living node's own entries outlive the TTL because it keeps refreshing
// them.
TEST(Cluster, ADeadNodesPresenceExpiresAfterPresenceTtl) {
  RedisServer redis;
  const std::vector<std::string> ttl = {"--cluster.presence_ttl", "2s"};
  Daemon a(cluster_flags(redis.port(), ttl));
  auto b = std::make_unique<Daemon>(cluster_flags(redis.port(), ttl));
  auto alice = connect_as(a.port, "alice");
  auto bob = connect_as(b->port, "bob");
  ASSERT_TRUE(json_has(subscribe(*alice, 2, "chat:dead"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*bob, 2, "chat:dead"), "/result"));
  std::deque<std::string> pushes;
  std::uint32_t id = 10;
  const auto presence = [&] {
    ++id;
    return request(*alice, id,
                   R"({"id":)" + std::to_string(id) + R"(,"presence":{"room":"chat:dead"}})",
                   &pushes)
        .value_or("");
  };
  const std::string before = presence();
  ASSERT_THAT(before, HasSubstr("\"bob\""));

  b->proc->signal(SIGKILL);
  (void)b->proc->wait_exit(std::chrono::seconds(5));
  bob.reset();
  std::string after;
  EXPECT_TRUE(eventually(
      [&] {
        after = presence();
        return after.find("\"bob\"") == std::string::npos;
      },
      std::chrono::seconds(30)))
      << after;
  EXPECT_THAT(after, HasSubstr("\"alice\"")) << "the living node's entry expired too";
  for (const auto& m : pushes) EXPECT_FALSE(json_has(m, "/leave")) << m;
}

TEST(Cluster, AClientReconnectingToAnotherNodeRecoversExactlyTheGap) {
  RedisServer redis;
  auto a = std::make_unique<Daemon>(cluster_flags(redis.port()));
  Daemon b(cluster_flags(redis.port())), c(cluster_flags(redis.port()));
  auto client = connect_as(a->port, "u");
  ASSERT_TRUE(json_has(subscribe(*client, 2, "chat:r"), "/result"));
  auto pub = connect_as(b.port, "p");
  for (int i = 1; i <= 3; ++i)
    ASSERT_TRUE(json_has(publish(*pub, 10 + i, "chat:r", "1"), "/result"));
  std::string last;
  for (int i = 1; i <= 3; ++i) {
    auto m = next_pub(*client);
    ASSERT_TRUE(m);
    last = *m;
  }
  // Node a dies with the client on it; the room goes on through b.
  a->proc->signal(SIGKILL);
  (void)a->proc->wait_exit(std::chrono::seconds(5));
  client.reset();
  for (int i = 4; i <= 6; ++i)
    ASSERT_TRUE(json_has(publish(*pub, 10 + i, "chat:r", std::to_string(i)), "/result"));

  // The client comes back on c with its last position: exactly 4, 5, 6.
  auto again = connect_as(c.port, "u");
  auto r = subscribe(*again, 2, "chat:r", since_of(last));
  EXPECT_EQ(json_bool(r, "/result/recovered"), true) << r;
  ASSERT_EQ(json_size(r, "/result/publications"), 3u) << r;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(json_uint(r, "/result/publications/" + std::to_string(i) + "/offset"),
              static_cast<std::uint64_t>(4 + i));
    EXPECT_EQ(json_raw(r, "/result/publications/" + std::to_string(i) + "/data"),
              std::to_string(4 + i));
  }
  EXPECT_EQ(json_uint(r, "/result/offset"), 6u);
  // And live from there.
  ASSERT_TRUE(json_has(publish(*pub, 20, "chat:r", "7"), "/result"));
  auto m = next_pub(*again);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_uint(*m, "/pub/offset"), 7u);
}

// Centrifugo's info on any node lists every live node with its census,
// carried by the heartbeat (each figure at most a beat old), the asking
// node's own as of now.
TEST(Cluster, InfoListsEveryNodeWithItsCensus) {
  RedisServer redis;
  auto flags =
      cluster_flags(redis.port(), {"--api.key", "k3y", "--cluster.heartbeat_interval", "100ms"});
  auto node_a = flags, node_b = flags;
  node_a.insert(node_a.end(), {"--cluster.node_id", "a"});
  node_b.insert(node_b.end(), {"--cluster.node_id", "b"});
  Daemon a(node_a), b(node_b);
  auto alice = connect_as(a.port, "alice");
  ASSERT_TRUE(json_has(subscribe(*alice, 2, "chat:a"), "/result"));
  auto bob = connect_as(b.port, "bob");
  auto carol = connect_as(b.port, "carol");
  ASSERT_TRUE(json_has(subscribe(*bob, 2, "chat:a"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*carol, 2, "chat:b"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*carol, 3, "chat:a"), "/result"));
  // Nodes are sorted by id: a, then b.
  std::string body;
  const bool listed = eventually([&] {
    body = api_post(a.port, "/api/info", "{}", "k3y").body;
    return json_size(body, "/result/nodes") == 2u &&
           json_uint(body, "/result/nodes/1/num_subs") == 3u;
  });
  ASSERT_TRUE(listed) << body;
  EXPECT_EQ(json_str(body, "/result/nodes/0/uid"), "a") << body;
  EXPECT_EQ(json_uint(body, "/result/nodes/0/num_clients"), 1u);
  EXPECT_EQ(json_uint(body, "/result/nodes/0/num_channels"), 1u);
  EXPECT_EQ(json_str(body, "/result/nodes/1/uid"), "b");
  EXPECT_EQ(json_uint(body, "/result/nodes/1/num_clients"), 2u);
  EXPECT_EQ(json_uint(body, "/result/nodes/1/num_users"), 2u);
  EXPECT_EQ(json_uint(body, "/result/nodes/1/num_channels"), 2u);
  EXPECT_EQ(json_str(body, "/result/nodes/1/version"), HERALD_VERSION);
}

// Centrifugo's channels on any node: every node's rooms with their
// subscriptions added up, by a survey of the others; a node that is listed
// but does not answer (stopped) fails it by name rather than leaving its
// rooms out.
TEST(Cluster, ChannelsAddsEveryNodesRooms) {
  RedisServer redis;
  auto flags = cluster_flags(redis.port(), {"--api.key", "k3y", "--cluster.heartbeat_interval",
                                            "100ms", "--cluster.node_ttl", "1h"});
  Daemon a(flags), b(flags);
  auto alice = connect_as(a.port, "alice");
  auto bob = connect_as(b.port, "bob");
  auto carol = connect_as(b.port, "carol");
  ASSERT_TRUE(json_has(subscribe(*alice, 2, "chat:a"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*bob, 2, "chat:a"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*carol, 2, "chat:b"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*carol, 3, "news"), "/result"));
  ASSERT_TRUE(eventually([&] {
    return json_size(api_post(a.port, "/api/info", "{}", "k3y").body, "/result/nodes") == 2u;
  }));
  HttpReply r = api_post(a.port, "/api/channels", R"({"pattern":"chat:*"})", "k3y");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_raw(r.body, "/result"),
            R"({"channels":{"chat:a":{"num_clients":2},"chat:b":{"num_clients":1}}})")
      << r.body;
  r = api_post(b.port, "/api/channels", "{}", "k3y");
  EXPECT_EQ(json_uint(r.body, "/result/channels/news/num_clients"), 1u) << r.body;
  EXPECT_EQ(json_uint(r.body, "/result/channels/chat:a/num_clients"), 2u) << r.body;

  // b stops answering but stays listed (node_ttl 1h): a's survey waits
  // cluster.redis.command_timeout, then says who did not answer.
  ASSERT_TRUE(b.proc->pause());
  r = api_post(a.port, "/api/channels", "{}", "k3y");
  b.proc->resume();
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_THAT(r.body, HasSubstr("no answer")) << r.body;
  EXPECT_THAT(r.body, HasSubstr("node-")) << r.body;
  r = api_post(a.port, "/api/channels", R"({"pattern":"news"})", "k3y");
  EXPECT_EQ(json_raw(r.body, "/result"), R"({"channels":{"news":{"num_clients":1}}})") << r.body;
}

// A publish on one node retried through another: Redis answers the retry
// with the first position (the publish script's idempotency key), and the
// subscriber on a third node sees one publication.
TEST(Cluster, AnIdempotencyKeyPublishesOnceAcrossNodes) {
  RedisServer redis;
  std::vector<std::string> flags = cluster_flags(redis.port());
  flags.insert(flags.end(), {"--api.key", "k3y"});
  Daemon a(flags), b(flags), c(flags);
  expect_idempotent_publishes(a.port, b.port, c.port, "chat:once");
  // The key lives in the room's slot, for the window.
  const std::string key = "herald:{chat:once}:i:k1";
  const long long ms = redis.command({"PTTL", key}).integer;
  EXPECT_GT(ms, 150'000);
  EXPECT_LE(ms, 300'000);
}

// The server API's refresh with info on one node: the user's presence
// entry, which another node reads from Redis, carries it at once (not at
// the next presence refresh), and so does her next publication.
TEST(Cluster, ARefreshedInfoIsInPresenceOnEveryNode) {
  RedisServer redis;
  std::vector<std::string> flags =
      cluster_flags(redis.port(), {"--api.key", "k3y", "--cluster.presence_ttl", "1h"});
  Daemon a(flags), b(flags);
  auto alice = connect_as(a.port, "alice");
  auto bob = connect_as(b.port, "bob");
  ASSERT_TRUE(json_has(subscribe(*alice, 2, "chat:who"), "/result"));
  ASSERT_TRUE(json_has(subscribe(*bob, 2, "chat:who"), "/result"));
  HttpReply r = api_post(a.port, "/api/refresh", R"({"user":"alice","info":{"n":2}})", "k3y");
  ASSERT_EQ(r.status, 200) << r.body;
  std::string seen;
  EXPECT_TRUE(eventually([&] {
    auto p = request(*bob, 3, R"({"id":3,"presence":{"room":"chat:who"}})");
    seen = p.value_or("");
    return seen.find(R"("user":"alice","info":{"n":2})") != std::string::npos;
  })) << seen;
  ASSERT_TRUE(json_has(publish(*alice, 4, "chat:who", "1"), "/result"));
  auto m = next_pub(*bob);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/info/info"), R"({"n":2})") << *m;
}

// Tags published on one node reach a subscriber on another with the
// publication, live and from the history Redis keeps.
TEST(Cluster, TagsTravelWithThePublicationAcrossNodes) {
  RedisServer redis;
  std::vector<std::string> flags = cluster_flags(redis.port());
  flags.insert(flags.end(), {"--api.key", "k3y"});
  Daemon a(flags), b(flags);
  expect_tags_travel_with_the_publication(a.port, b.port, "chat:tags");
}

// An override's presence read from Redis on another node, and its join and
// leave (or their absence) through Redis's channel.
TEST(Cluster, AnOverrideShapesOneSubscriptionsPresenceOnEveryNode) {
  RedisServer redis;
  std::vector<std::string> flags = cluster_flags(redis.port());
  flags.insert(flags.end(), {"--api.key", "k3y"});
  Daemon a(flags), b(flags);
  expect_overrides_shape_presence(a.port, b.port, "chat:override");
}

// The Redis broker reads `since` as the embedded one does: an empty epoch
// is the current one, another is refused.
TEST(Cluster, HistorySinceReadsTheCurrentEpochOrRefusesAnother) {
  RedisServer redis;
  std::vector<std::string> flags = cluster_flags(redis.port());
  flags.insert(flags.end(), {"--api.key", "k3y"});
  Daemon a(flags);
  expect_history_since_reads_the_current_epoch(a.port, "chat:since");
}

// history_remove on one node; a client of another reads what it left.
TEST(Cluster, HistoryRemoveDropsThePublicationsAndKeepsTheStream) {
  RedisServer redis;
  std::vector<std::string> flags = cluster_flags(redis.port());
  flags.insert(flags.end(), {"--api.key", "k3y"});
  Daemon a(flags), b(flags);
  expect_history_remove_keeps_the_stream(a.port, b.port, "chat:removed");
}

// docs/cluster.md, "A room is idle": a room's epoch and top (the :m hash)
// are kept cluster.stream_ttl after its last publish or subscribe, at least
// history_ttl; its history (:h) history_ttl. Read as the keys' TTLs in the
// real Redis, shortened by hand to see a publish and a subscribe put them
// back. A room whose keys expired starts a new epoch: an old position does
// not recover.
TEST(Cluster, ARoomsStreamKeysLiveStreamTtlAfterItsLastPublishOrSubscribe) {
  RedisServer redis;
  Daemon a(
      cluster_flags(redis.port(), {"--cluster.stream_ttl", "1h", "--rooms.history_ttl", "10m"}));
  const auto pttl = [&](const std::string& key) { return redis.command({"PTTL", key}).integer; };
  const std::string meta = "herald:{ttl:a}:m", history = "herald:{ttl:a}:h";
  // Set to `want_ms` a moment ago: at most that, and more than half of it
  // (the slack only bounds a slow machine; every TTL the checks tell apart
  // is less than half the other).
  const auto fresh = [](long long ttl_ms, long long want_ms) {
    return ttl_ms <= want_ms && ttl_ms > want_ms / 2;
  };
  auto p = connect_as(a.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 2, "ttl:a", "1"), "/result"));
  EXPECT_TRUE(fresh(pttl(meta), 3'600'000)) << pttl(meta);
  EXPECT_TRUE(fresh(pttl(history), 600'000)) << pttl(history);

  ASSERT_EQ(redis.command({"PEXPIRE", meta, "100000"}).integer, 1);
  ASSERT_TRUE(json_has(publish(*p, 3, "ttl:a", "2"), "/result"));
  EXPECT_TRUE(fresh(pttl(meta), 3'600'000)) << "a publish did not refresh it: " << pttl(meta);

  ASSERT_EQ(redis.command({"PEXPIRE", meta, "100000"}).integer, 1);
  auto s = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*s, 2, "ttl:a"), "/result"));
  EXPECT_TRUE(fresh(pttl(meta), 3'600'000)) << "a subscribe did not refresh it: " << pttl(meta);

  // stream_ttl below history_ttl: the epoch is kept as long as the history.
  Daemon b(
      cluster_flags(redis.port(), {"--cluster.stream_ttl", "1s", "--rooms.history_ttl", "1m"}));
  auto pb = connect_as(b.port, "p");
  ASSERT_TRUE(json_has(publish(*pb, 2, "ttl:b", "1"), "/result"));
  EXPECT_TRUE(fresh(pttl("herald:{ttl:b}:m"), 60'000)) << pttl("herald:{ttl:b}:m");

  // Both at their 1 s minimum: the keys go, and the room comes back with a
  // new epoch.
  Daemon c(
      cluster_flags(redis.port(), {"--cluster.stream_ttl", "1s", "--rooms.history_ttl", "1s"}));
  auto pc = connect_as(c.port, "p");
  const std::string first = publish(*pc, 2, "ttl:c", "1");
  const std::string epoch = json_str(first, "/result/epoch").value_or("");
  ASSERT_FALSE(epoch.empty()) << first;
  EXPECT_TRUE(eventually(
      [&] {
        return redis.command({"EXISTS", "herald:{ttl:c}:m"}).integer == 0;
      },
      std::chrono::seconds(30)));
  auto late = connect_as(c.port, "late");
  auto r = subscribe(*late, 2, "ttl:c", R"({"epoch":")" + epoch + R"(","offset":1})");
  EXPECT_EQ(json_bool(r, "/result/recovered"), false) << r;
  EXPECT_NE(json_str(r, "/result/epoch").value_or(epoch), epoch) << r;
  EXPECT_EQ(json_uint(r, "/result/offset"), 0u) << r;
}

TEST(Cluster, APublishIsOneRoundTripToRedis) {
  RedisServer redis;
  // Presence refresh and the node registry's heartbeat (one round trip a
  // second, counted by the same metric) far away, so the only traffic in
  // the window is the publishes, however slow the machine.
  Daemon a(
      cluster_flags(redis.port(), {"--cluster.presence_ttl", "1h", "--cluster.heartbeat_interval",
                                   "10m", "--cluster.node_ttl", "1h"}));
  auto p = connect_as(a.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 2, "chat:rt", "0"), "/result"));
  const double before = node_metric(a.port, "herald_cluster_redis_round_trips_total");
  constexpr int kPublishes = 20;
  for (int i = 0; i < kPublishes; ++i)
    ASSERT_TRUE(json_has(publish(*p, 10 + i, "chat:rt", std::to_string(i)), "/result"));
  const double after = node_metric(a.port, "herald_cluster_redis_round_trips_total");
  EXPECT_EQ(after - before, kPublishes);
}

// Durability (cluster.redis.wait_replicas): a publish is acknowledged once
// a replica has it, still in one round trip (the WAIT is pipelined behind
// the script). A replica that stops answering makes the publish wait
// wait_timeout and answer 114 naming its offset, nothing hangs, and once
// the replica is back publishes are acknowledged again.
TEST(Cluster, WaitReplicasAcknowledgesOnlyWhatAReplicaHas) {
  RedisServer master;
  RedisServer replica({"--replicaof", "127.0.0.1", std::to_string(master.port())}, {});
  ASSERT_TRUE(eventually([&] {
    return replica.command({"INFO", "replication"}).str.find("master_link_status:up") !=
           std::string::npos;
  }));
  Daemon a(cluster_flags(
      master.port(), {"--cluster.redis.wait_replicas", "1", "--cluster.redis.wait_timeout", "300ms",
                      "--cluster.presence_ttl", "1h", "--cluster.heartbeat_interval", "10m",
                      "--cluster.node_ttl", "1h"}));
  auto p = connect_as(a.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 2, "chat:dur", "1"), "/result/offset"));
  const double before = node_metric(a.port, "herald_cluster_redis_round_trips_total");
  auto r = publish(*p, 3, "chat:dur", "2");
  EXPECT_EQ(json_uint(r, "/result/offset"), 2u) << r;
  EXPECT_EQ(node_metric(a.port, "herald_cluster_redis_round_trips_total") - before, 1);
  EXPECT_EQ(replica.command({"HGET", "herald:{chat:dur}:m", "top"}).str, "2");

  replica.signal(SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  auto refused = publish(*p, 4, "chat:dur", "3");
  EXPECT_EQ(json_uint(refused, "/error/code"), 114u) << refused;
  EXPECT_NE(refused.find("published at offset 3"), std::string::npos) << refused;
  EXPECT_NE(refused.find("cluster.redis.wait_replicas"), std::string::npos) << refused;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  replica.signal(SIGCONT);
  ASSERT_TRUE(eventually(
      [&] { return json_uint(publish(*p, 5, "chat:dur", "4"), "/result/offset").has_value(); }));
}

// heraldd refuses a wait_timeout that would outlast its command timeout.
TEST(Cluster, AWaitTimeoutPastTheCommandTimeoutStopsStartUp) {
  RedisServer redis;
  RunResult r = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--cluster.mode", "redis",
                     "--cluster.redis.address", "127.0.0.1:" + std::to_string(redis.port()),
                     "--cluster.redis.wait_replicas", "1", "--cluster.redis.wait_timeout", "5s"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cluster.redis.wait_timeout"), std::string::npos) << r.output;
}

// A publication outside the stream is one PUBLISH: one round trip, and no
// key of the room is read or written (docs/cluster.md).
TEST(Cluster, ASkipHistoryPublishIsOneRoundTripAndWritesNoKey) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port(),
                         {"--api.key", "k3y", "--cluster.presence_ttl", "1h",
                          "--cluster.heartbeat_interval", "10m", "--cluster.node_ttl", "1h"}));
  const std::string body = R"({"room":"chat:live","data":1,"skip_history":true})";
  ASSERT_EQ(api_post(a.port, "/api/publish", body, "k3y").status, 200);
  const double before = node_metric(a.port, "herald_cluster_redis_round_trips_total");
  constexpr int kPublishes = 10;
  for (int i = 0; i < kPublishes; ++i) {
    HttpReply r = api_post(a.port, "/api/publish", body, "k3y");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_raw(r.body, "/result"), "{}") << r.body;
  }
  EXPECT_EQ(node_metric(a.port, "herald_cluster_redis_round_trips_total") - before, kPublishes);
  EXPECT_EQ(redis.command({"KEYS", "herald:{chat:live}*"}).elements.size(), 0u);
}

// Scripts go as EVALSHA, loaded when the node connects, so even the first
// publish on a fresh Redis is one round trip. SCRIPT FLUSH on a live
// connection: the publish that meets the empty cache did not run and is
// refused with 114 (try again), never run later behind newer ones
// (tests/cluster/publish_order_test.cpp says why); the node loads its
// scripts again, and the next publishes are one round trip.
TEST(Cluster, APublishAfterScriptFlushIsRefusedOnceThenTheScriptsAreLoadedAgain) {
  RedisServer redis;
  const std::vector<std::string> quiet = {"--cluster.presence_ttl", "1h",
                                          "--cluster.heartbeat_interval", "10m"};
  Daemon a(cluster_flags(redis.port(), quiet)), b(cluster_flags(redis.port(), quiet));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:sf"), "/result"));
  auto p = connect_as(b.port, "p");
  auto rounds = [&](int id, const std::string& data) {
    const double before = node_metric(b.port, "herald_cluster_redis_round_trips_total");
    auto r = publish(*p, id, "chat:sf", data);
    EXPECT_TRUE(json_has(r, "/result/offset")) << r;
    return node_metric(b.port, "herald_cluster_redis_round_trips_total") - before;
  };
  EXPECT_EQ(rounds(3, "1"), 1);  // the first publish on a fresh Redis
  EXPECT_EQ(rounds(4, "2"), 1);
  ASSERT_EQ(redis.command({"SCRIPT", "FLUSH"}).str, "OK");
  auto refused = publish(*p, 5, "chat:sf", "99");
  EXPECT_EQ(json_uint(refused, "/error/code"), 114u) << refused;
  EXPECT_NE(refused.find("SCRIPT FLUSH"), std::string::npos) << refused;
  ASSERT_TRUE(eventually([&] {
    auto exists =
        redis.command({"SCRIPT", "EXISTS", gateway::broker::redis_schema::kPublishScript.sha()});
    return exists.elements.size() == 1 && exists.elements[0].integer == 1;
  }));
  EXPECT_EQ(rounds(6, "3"), 1);
  // Each accepted publication reached the subscriber once, in order; the
  // refused one never ran.
  for (std::uint64_t offset = 1; offset <= 3; ++offset) {
    auto m = next_pub(*sub);
    ASSERT_TRUE(m) << "offset " << offset << " missing";
    EXPECT_EQ(json_uint(*m, "/pub/offset"), offset) << *m;
    EXPECT_EQ(pub_data(*m), std::to_string(offset));
  }
  EXPECT_EQ(redis.command({"HGET", "herald:{chat:sf}:m", "top"}).str, "3");
}

TEST(Cluster, AnOffsetJumpIsFilledFromTheHistoryBeforeDeliveryGoesOn) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:g"), "/result"));
  auto p = connect_as(b.port, "p");
  auto r1 = publish(*p, 3, "chat:g", "1");
  ASSERT_TRUE(json_has(r1, "/result"));
  ASSERT_TRUE(next_pub(*sub));
  const std::string epoch = json_str(r1, "/result/epoch").value_or("");
  // A publication whose pub/sub message was lost: in the history, never
  // published on the channel (written as the publish script would).
  redis.command({"HINCRBY", "herald:{chat:g}:m", "top", "1"});
  auto now = redis.command({"TIME"});
  redis.command({"RPUSH", "herald:{chat:g}:h",
                 now.elements[0].str + "000 " + protocol_frame("chat:g", 2, epoch, "\"lost\"")});
  ASSERT_TRUE(json_has(publish(*p, 4, "chat:g", "3"), "/result"));
  // Node a saw offset 3 after 1: it reads 2 from the history first.
  auto m2 = next_pub(*sub);
  auto m3 = next_pub(*sub);
  ASSERT_TRUE(m2 && m3);
  EXPECT_EQ(json_uint(*m2, "/pub/offset"), 2u);
  EXPECT_EQ(pub_data(*m2), "\"lost\"");
  EXPECT_EQ(json_uint(*m3, "/pub/offset"), 3u);
  EXPECT_GE(node_metric(a.port, "herald_cluster_gap_fetches_total"), 1);
}

TEST(Cluster, AGapTheHistoryLostResetsTheRoomNeverASilentHole) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:h"), "/result"));
  auto p = connect_as(b.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 3, "chat:h", "1"), "/result"));
  auto m1 = next_pub(*sub);
  ASSERT_TRUE(m1);
  // Offset 2 is lost from the channel and from the history.
  redis.command({"HINCRBY", "herald:{chat:h}:m", "top", "1"});
  redis.command({"DEL", "herald:{chat:h}:h"});
  ASSERT_TRUE(json_has(publish(*p, 4, "chat:h", "3"), "/result"));
  // The subscriber is told (3005, reconnect) instead of getting 3 after 1.
  ASSERT_TRUE(expect_reset(*sub, "a hole", std::chrono::seconds(5)));
  // Its resubscribe says recovered=false.
  auto again = connect_as(a.port, "s");
  auto r = subscribe(*again, 2, "chat:h", since_of(*m1));
  EXPECT_EQ(json_bool(r, "/result/recovered"), false) << r;
  EXPECT_GE(node_metric(a.port, "herald_cluster_stream_resets_total"), 1);
}

// cluster.max_pending bounds what a node holds behind a gap while it reads
// the gap from the history. Node a stalls (SIGSTOP) right after a
// publication was lost from its channel; the publications accepted
// meanwhile pile up in its socket and arrive at once when it resumes: past
// the limit, the room's subscribers on a are reset (3005) rather than held
// without bound. a keeps serving, and a resubscribe with the last position
// recovers every accepted publication, the lost one included, once each.
TEST(Cluster, PublicationsPilingUpBehindAGapPastMaxPendingResetTheRoomNothingIsLost) {
  RedisServer redis;
  // Nothing in flight from a while it is stopped: no refresh, no heartbeat,
  // and a command timeout longer than the stop.
  Daemon a(cluster_flags(redis.port(), {"--cluster.max_pending", "3", "--cluster.presence_ttl",
                                        "1h", "--cluster.heartbeat_interval", "10m",
                                        "--cluster.redis.command_timeout", "1m"}));
  Daemon b(cluster_flags(redis.port()));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:mp"), "/result"));
  auto p = connect_as(b.port, "p");
  auto r1 = publish(*p, 3, "chat:mp", "1");
  ASSERT_TRUE(json_has(r1, "/result")) << r1;
  auto m1 = next_pub(*sub);
  ASSERT_TRUE(m1);
  const std::string epoch = json_str(r1, "/result/epoch").value_or("");
  // Offset 2 is in the history but its channel message was lost.
  redis.command({"HINCRBY", "herald:{chat:mp}:m", "top", "1"});
  auto now = redis.command({"TIME"});
  redis.command({"RPUSH", "herald:{chat:mp}:h",
                 now.elements[0].str + "000 " + protocol_frame("chat:mp", 2, epoch, "2")});
  // Stopped, every thread (pause() waits for that): every message below
  // then waits in a's socket until it resumes.
  ASSERT_TRUE(a.proc->pause());
  constexpr std::uint64_t kLast = 12;  // 3..12: ten publications, more than 3 behind the gap
  for (std::uint64_t i = 3; i <= kLast; ++i) {
    auto r = publish(*p, static_cast<int>(10 + i), "chat:mp", std::to_string(i));
    EXPECT_EQ(json_uint(r, "/result/offset"), i) << r;
  }
  a.proc->resume();
  ASSERT_TRUE(expect_reset(*sub, "the gap", std::chrono::seconds(10)));
  EXPECT_GE(node_metric(a.port, "herald_cluster_stream_resets_total"), 1);
  // a still serves: the resubscribe recovers 2..12 from the history.
  auto again = connect_as(a.port, "s");
  auto r = subscribe(*again, 2, "chat:mp", since_of(*m1));
  ASSERT_EQ(json_bool(r, "/result/recovered"), true) << r;
  ASSERT_EQ(json_size(r, "/result/publications"), kLast - 1) << r;
  for (std::uint64_t i = 0; i < kLast - 1; ++i) {
    const std::string at = "/result/publications/" + std::to_string(i);
    EXPECT_EQ(json_uint(r, at + "/offset"), i + 2) << r;
    EXPECT_EQ(json_raw(r, at + "/data"), std::to_string(i + 2)) << r;
  }
  // And live delivery goes on from there, on both nodes.
  ASSERT_TRUE(json_has(publish(*p, 40, "chat:mp", "13"), "/result"));
  auto live = next_pub(*again);
  ASSERT_TRUE(live);
  EXPECT_EQ(json_uint(*live, "/pub/offset"), kLast + 1) << *live;
}

// A restart starts a new replication history (a new master_replid), so by
// default every room on it takes a new epoch (next test). An operator whose
// Redis cannot lose an acknowledged write (appendfsync always, as here, and
// no replicas) may say so with new_history = continue: then the stream
// goes on where it was.
TEST(Cluster, RedisRestartedWithItsDataNodesReconnectAndDeliveryResumes) {
  RedisServer redis(/*persist=*/true);
  const std::vector<std::string> trust = {"--cluster.redis.new_history", "continue"};
  Daemon a(cluster_flags(redis.port(), trust)), b(cluster_flags(redis.port(), trust));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:k"), "/result"));
  auto p = connect_as(b.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 3, "chat:k", "1"), "/result"));
  ASSERT_TRUE(next_pub(*sub));

  redis.kill();
  // While Redis is away a publish fails plainly (114: try again), it is
  // not queued.
  auto down = publish(*p, 4, "chat:k", "\"x\"");
  EXPECT_EQ(json_uint(down, "/error/code"), 114u) << down;
  // The server API answers the same outage 503 (try again), not 404.
  HttpReply api_down = api_post(b.port, "/api/publish", R"({"room":"chat:k","data":"x"})");
  EXPECT_EQ(api_down.status, 503) << api_down.body;
  EXPECT_THAT(api_down.body, ::testing::HasSubstr(R"("code":"unavailable")")) << api_down.body;
  redis.start();
  for (const Daemon* d : {&a, &b}) {
    ASSERT_TRUE(eventually([&] { return node_metric(d->port, "herald_cluster_redis_up") == 1; }));
  }
  // The subscriber's node resubscribed the channel: delivery resumes at 2.
  ASSERT_TRUE(eventually([&] { return json_has(publish(*p, 5, "chat:k", "2"), "/result"); }));
  auto m = next_pub(*sub);
  ASSERT_TRUE(m);
  EXPECT_EQ(json_uint(*m, "/pub/offset"), 2u) << *m;
  EXPECT_EQ(pub_data(*m), "2");
}

// By default (new_history = new_epoch) the restarted Redis's new history
// gives the room a new epoch: the node resets its subscribers (3005), and a
// resubscribe from the old position is told recovered: false, never
// continued as if nothing could have been lost.
TEST(Cluster, RedisRestartedWithItsDataStartsANewEpochByDefault) {
  RedisServer redis(/*persist=*/true);
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:ne"), "/result"));
  auto p = connect_as(b.port, "p");
  auto first = publish(*p, 3, "chat:ne", "1");
  ASSERT_TRUE(json_has(first, "/result"));
  auto m1 = next_pub(*sub);
  ASSERT_TRUE(m1);
  redis.kill();
  redis.start();
  ASSERT_TRUE(expect_reset(*sub, "the restart", std::chrono::seconds(10)));
  auto again = connect_as(a.port, "s");
  std::string r;
  ASSERT_TRUE(eventually([&] {
    r = subscribe(*again, 2, "chat:ne", since_of(*m1));
    return json_has(r, "/result");
  }));
  EXPECT_EQ(json_bool(r, "/result/recovered"), false) << r;
  EXPECT_NE(json_str(r, "/result/epoch"), json_str(first, "/result/epoch")) << r;
  // The stream goes on in the new epoch, live. Node b reconnects on its
  // own backoff and may still be refused while Redis loads its data (114,
  // LOADING: told, nothing published), so it is asked until it answers.
  std::string next;
  ASSERT_TRUE(eventually([&] {
    next = publish(*p, 4, "chat:ne", "2");
    return json_has(next, "/result");
  })) << next;
  EXPECT_EQ(json_str(next, "/result/epoch"), json_str(r, "/result/epoch")) << next;
  auto live = next_pub(*again);
  ASSERT_TRUE(live);
  EXPECT_EQ(pub_data(*live), "2");
}

// A followed room (client/room_list_follows.cpp) whose stream is reset (a
// restarted Redis starts a new epoch) is followed again: the connection is
// not disconnected as a subscriber would be (3005), nothing reaches it as
// a publication, and its list moves with the new epoch's publications.
TEST(Cluster, ARoomListFollowsARoomAgainAfterItsStreamIsReset) {
  RedisServer redis(/*persist=*/true);
  const std::string dir =
      ::testing::TempDir() + "herald-cluster-refollow-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  Daemon a(cluster_flags(redis.port(), {"--api.key", "k3y", "--state.dir", dir}));
  Daemon b(cluster_flags(redis.port()));
  ASSERT_EQ(
      api_post(a.port, "/api/members_add", R"({"room":"team:re","user":"ann"})", "k3y").status,
      200);
  auto p = connect_as(b.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 2, "team:re", R"({"text":"before"})"), "/result"));
  auto ann = connect_as(a.port, "ann");
  auto watched = request(*ann, 2, R"({"id":2,"rooms.watch":{}})");
  ASSERT_TRUE(watched && json_has(*watched, "/result")) << watched.value_or("no reply");
  // Reads ann's pushes until her list shows `preview`; none may be a
  // publication or a disconnect.
  const auto shows = [&](const std::string& preview) {
    while (auto m = ann->next(std::chrono::seconds(10))) {
      EXPECT_FALSE(json_has(*m, "/pub")) << "a publication reached a follow: " << *m;
      EXPECT_FALSE(json_has(*m, "/disconnect")) << *m;
      if (json_has(*m, "/pub") || json_has(*m, "/disconnect")) return false;
      if (json_has(*m, "/rooms") && m->find(R"("preview":")" + preview + "\"") != std::string::npos)
        return true;
    }
    return false;
  };
  ASSERT_TRUE(shows("before"));

  redis.kill();
  redis.start();
  ASSERT_TRUE(eventually([&] { return node_metric(a.port, "herald_cluster_redis_up") == 1; }));
  // The node reads the room again, finds a new epoch and resets it.
  ASSERT_TRUE(
      eventually([&] { return node_metric(a.port, "herald_cluster_stream_resets_total") >= 1; }));
  std::string after;
  ASSERT_TRUE(eventually([&] {
    after = publish(*p, 3, "team:re", R"({"text":"after"})");
    return json_has(after, "/result");
  })) << after;
  EXPECT_TRUE(shows("after")) << "ann's list did not move after the reset";
  std::filesystem::remove_all(dir);
}

TEST(Cluster, RedisRestartedWithoutItsDataClientsAreToldNotShownAHole) {
  RedisServer redis;  // nothing persisted: a restart loses every room
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  auto sub = connect_as(a.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:l"), "/result"));
  auto p = connect_as(b.port, "p");
  ASSERT_TRUE(json_has(publish(*p, 3, "chat:l", "1"), "/result"));
  ASSERT_TRUE(json_has(publish(*p, 4, "chat:l", "2"), "/result"));
  ASSERT_TRUE(next_pub(*sub));
  auto last = next_pub(*sub);
  ASSERT_TRUE(last);

  redis.kill();
  redis.start();
  ASSERT_TRUE(eventually([&] { return node_metric(a.port, "herald_cluster_redis_up") == 1; }));
  // Node a reads the room after reconnecting, finds a new epoch, and resets
  // its subscriber; nothing of another epoch reaches it silently.
  ASSERT_TRUE(expect_reset(*sub, "a lost stream", std::chrono::seconds(10)));
  // Node b may learn only now, from this very command, that its
  // connection died with Redis: its subscribe then fails (114) and is tried
  // again.
  auto again = connect_as(b.port, "s");
  std::string r;
  std::uint32_t id = 2;
  ASSERT_TRUE(eventually([&] {
    r = subscribe(*again, id++, "chat:l", since_of(*last));
    return json_has(r, "/result");
  })) << r;
  EXPECT_EQ(json_bool(r, "/result/recovered"), false) << r;
  EXPECT_NE(json_str(r, "/result/epoch"), json_str(*last, "/pub/epoch"));
}

TEST(Cluster, RoomsAreShardedOverSeveralRedisServers) {
  RedisServer r1, r2;
  const std::string shards =
      "127.0.0.1:" + std::to_string(r1.port()) + ", 127.0.0.1:" + std::to_string(r2.port());
  // The two nodes list the shards in opposite orders: same owners anyway.
  const std::string reversed =
      "127.0.0.1:" + std::to_string(r2.port()) + ",127.0.0.1:" + std::to_string(r1.port());
  Daemon a(cluster_flags(r1.port(), {"--cluster.redis.shards", shards}));
  Daemon b(cluster_flags(r1.port(), {"--cluster.redis.shards", reversed}));
  constexpr int kRooms = 16;
  auto pub = expect_rooms_reach_across(a.port, b.port, "sh:", kRooms);
  // Each room's keys are on exactly one server, and both servers hold some.
  int on1 = 0, on2 = 0;
  for (int i = 0; i < kRooms; ++i) {
    const std::string meta = "herald:{sh:" + std::to_string(i) + "}:m";
    const bool in1 = r1.command({"EXISTS", meta}).integer == 1;
    const bool in2 = r2.command({"EXISTS", meta}).integer == 1;
    EXPECT_NE(in1, in2) << meta;
    on1 += in1;
    on2 += in2;
  }
  EXPECT_GT(on1, 0);
  EXPECT_GT(on2, 0);

  // One shard dies: its rooms fail plainly (114), the other's keep working.
  r2.kill();
  int ok = 0, unavailable = 0;
  for (int i = 0; i < kRooms; ++i) {
    auto r = publish(*pub, 300 + i, "sh:" + std::to_string(i), "1");
    if (json_has(r, "/result")) ++ok;
    if (json_uint(r, "/error/code") == 114u) ++unavailable;
  }
  EXPECT_EQ(ok, on1);
  EXPECT_EQ(unavailable, on2);
}

// Keyword dictionaries live in the same Redis: a dictionary added through
// one node's API moderates what is published through another, as seen by a
// subscriber on a third.
TEST(Cluster, ADictionaryAddedOnNodeAMasksMessagesPublishedThroughNodeC) {
  RedisServer redis;
  const std::string conf = write_temp_file("cluster_moderation.toml", R"(
[namespaces.chat]
moderation = "banned"
)");
  const std::vector<std::string> extra = {"--config",
                                          conf,
                                          "--keywords.store",
                                          "redis",
                                          "--keywords.redis.address",
                                          "127.0.0.1:" + std::to_string(redis.port()),
                                          "--keywords.redis.backstop_interval",
                                          "200ms"};
  Daemon a(cluster_flags(redis.port(), extra)), b(cluster_flags(redis.port(), extra)),
      c(cluster_flags(redis.port(), extra));
  auto sub = connect_as(b.port, "s");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, "chat:mod"), "/result"));
  auto pub = connect_as(c.port, "p");

  const HttpReply reply = api_post(a.port, "/api/keywords/banned/add",
                                   R"({"keywords":[{"keyword":"darn","action":"mask"}]})");
  ASSERT_EQ(reply.status, 200) << reply.body;

  // Node c learns of the dictionary through Redis (invalidation, or the
  // backstop poll); from then on its publications arrive masked everywhere.
  std::uint32_t id = 10;
  EXPECT_TRUE(eventually([&] {
    auto r = publish(*pub, id++, "chat:mod", R"({"text":"what a darn day"})");
    if (!json_has(r, "/result")) return false;
    auto m = next_pub(*sub);
    return m && json_str(*m, "/pub/data/text") == "what a **** day";
  }));
}

}  // namespace
}  // namespace herald::test
