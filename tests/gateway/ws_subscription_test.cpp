// Commands on one room, answered in order and each once, whatever their
// interleaving with the broker's answers (docs/protocol.md, "Commands on one
// room"): the probes that found the old bugs, against heraldd with the
// embedded broker (two shards: the subscriber and the publisher on
// different ones). The same probes run over Redis in
// tests/cluster/subscription_order_test.cpp.
#include "subscription_probes.hpp"

namespace herald::test {
namespace {

TEST(GatewaySubscriptions, SubscribeThenUnsubscribeInOneFrame) {
  Daemon d;
  SubscriptionProbe p(d.port, d.port);
  probe_subscribe_unsubscribe(p);
}

TEST(GatewaySubscriptions, SubscribeUnsubscribeSubscribeInOneFrameEndsSubscribed) {
  Daemon d;
  SubscriptionProbe p(d.port, d.port);
  probe_subscribe_unsubscribe_subscribe(p);
  EXPECT_TRUE(eventually_metric(d.port, "herald_subscriptions", 2));  // probe2 and the control
}

TEST(GatewaySubscriptions, UnsubscribeSubscribeUnsubscribeAfterAnActiveSubscription) {
  Daemon d;
  SubscriptionProbe p(d.port, d.port);
  probe_active_unsubscribe_subscribe_unsubscribe(p);
  EXPECT_TRUE(eventually_metric(d.port, "herald_subscriptions", 1));  // the control room
}

TEST(GatewaySubscriptions, ABurstOfAThousandCommandsOverFreshRoomsIsAllAnswered) {
  Daemon d({"--client.max_subscriptions", "1000", "--client.command_burst", "2000"});
  SubscriptionProbe p(d.port, d.port);
  probe_burst_over_fresh_rooms(p, d.port);
}

TEST(GatewaySubscriptions, ADisconnectWhileSubscribingUndoesEveryRegistration) {
  Daemon d;
  SubscriptionProbe p(d.port, d.port);
  probe_disconnect_while_subscribing(p, d.port, d.port);
}

// Over client.max_pending_per_room, a command on a room whose subscribe is
// in flight is refused at once (106, naming the setting); the others are
// answered in order and the refused one changes nothing.
TEST(GatewaySubscriptions, TheQueueOfARoomIsBounded) {
  Daemon d({"--client.max_pending_per_room", "2"});
  SubscriptionProbe p(d.port, d.port);
  Received r = p.send_frame({subscribe_cmd(10, "q"), unsubscribe_cmd(11, "q"),
                             subscribe_cmd(12, "q"), unsubscribe_cmd(13, "q")},
                            {10, 11, 12, 13});
  ASSERT_EQ(r.order.size(), 4u);
  EXPECT_EQ(r.order.front(), 13u) << "the refusal comes at once, before the queued replies";
  EXPECT_EQ(json_uint(r.by_id[13].front(), "/error/code"), 106u);
  EXPECT_THAT(r.by_id[13].front(), ::testing::HasSubstr("client.max_pending_per_room (2)"));
  EXPECT_EQ(std::vector<std::uint32_t>(r.order.begin() + 1, r.order.end()),
            (std::vector<std::uint32_t>{10, 11, 12}));
  EXPECT_TRUE(is_subscribe_result(r.by_id[12]));
  EXPECT_EQ(p.deliveries_of_one_publication("q"), 1);
}

}  // namespace
}  // namespace herald::test
