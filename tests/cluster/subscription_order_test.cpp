// The subscription probes (tests/gateway/subscription_probes.hpp) in cluster
// mode: two heraldd nodes over one real redis-server, the subscriber on one
// and the publisher on the other. A subscribe is a Redis round trip here
// (and the node's channel subscription), so the commands that arrive while
// it is in flight are the common case, not a race.
#include "cluster_support.hpp"
#include "gateway/subscription_probes.hpp"

namespace herald::test {
namespace {

// Subscribers this room's channel has in Redis (nodes, not clients).
std::int64_t channel_subscribers(RedisServer& redis, const std::string& room) {
  return redis.command({"PUBSUB", "NUMSUB", "herald:{" + room + "}:c"}).elements.at(1).integer;
}

// A Redis, two nodes on it, and a probe whose subscriber is on a and
// publisher on b. `a_flags` are extra flags for node a.
struct TwoNodes {
  explicit TwoNodes(std::vector<std::string> a_flags = {})
      : a(cluster_flags(redis.port(), std::move(a_flags))),
        b(cluster_flags(redis.port())),
        probe(a.port, b.port) {}
  RedisServer redis;
  Daemon a;
  Daemon b;
  SubscriptionProbe probe;
};

TEST(ClusterSubscriptions, SubscribeThenUnsubscribeInOneFrame) {
  TwoNodes n;
  RedisServer& redis = n.redis;
  SubscriptionProbe& p = n.probe;
  probe_subscribe_unsubscribe(p);
  EXPECT_TRUE(eventually([&] { return channel_subscribers(redis, "probe1") == 0; }));
}

TEST(ClusterSubscriptions, SubscribeUnsubscribeSubscribeInOneFrameEndsSubscribed) {
  TwoNodes n;
  RedisServer& redis = n.redis;
  SubscriptionProbe& p = n.probe;
  probe_subscribe_unsubscribe_subscribe(p);
  EXPECT_EQ(channel_subscribers(redis, "probe2"), 1);  // node a, for its subscriber
}

TEST(ClusterSubscriptions, UnsubscribeSubscribeUnsubscribeAfterAnActiveSubscription) {
  TwoNodes n;
  RedisServer& redis = n.redis;
  SubscriptionProbe& p = n.probe;
  probe_active_unsubscribe_subscribe_unsubscribe(p);
  EXPECT_TRUE(eventually([&] { return channel_subscribers(redis, "probe3") == 0; }));
}

TEST(ClusterSubscriptions, ABurstOfAThousandCommandsOverFreshRoomsIsAllAnswered) {
  TwoNodes n({"--client.max_subscriptions", "1000", "--client.command_burst", "2000"});
  RedisServer& redis = n.redis;
  SubscriptionProbe& p = n.probe;
  probe_burst_over_fresh_rooms(p, n.a.port);
  for (const char* room : {"burst-0", "burst-250", "burst-499"}) {
    EXPECT_TRUE(eventually([&] { return channel_subscribers(redis, room) == 0; })) << room;
  }
}

TEST(ClusterSubscriptions, ADisconnectWhileSubscribingUndoesEveryRegistration) {
  TwoNodes n;
  RedisServer& redis = n.redis;
  SubscriptionProbe& p = n.probe;
  probe_disconnect_while_subscribing(p, n.a.port, n.a.port);
  // The node's channel unsubscribes travel on its pub/sub connection, apart
  // from the registrations the probe waited for: wait for them too, as the
  // tests above do (a loaded machine can hold them past the probe's end).
  for (int i = 0; i < 50; ++i) {
    const std::string room = "gone-" + std::to_string(i);
    EXPECT_TRUE(eventually([&] { return channel_subscribers(redis, room) == 0; }))
        << room << " keeps " << channel_subscribers(redis, room) << " subscriber(s)";
  }
}

}  // namespace
}  // namespace herald::test
