// SSE streams in cluster mode (two real heraldd nodes on a real
// redis-server): a stream on one node gets the publications made on the
// other, with ids that carry the cluster's epochs and offsets, and resumes
// exactly on either node from its Last-Event-ID, since every node reads the
// same streams from Redis.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_support.hpp"
#include "support/sse_stream.hpp"

namespace herald::test {
namespace {

void api_publish(std::uint16_t port, const std::string& room, const std::string& data) {
  HttpReply r = api_post(port, "/api/publish", R"({"room":")" + room + R"(","data":)" + data + "}");
  EXPECT_EQ(r.status, 200) << r.body;
}

// "connected" and one "subscribed" per room; false (with the output) if not.
bool opened(SseStream& s, std::size_t rooms) {
  for (std::size_t i = 0; i <= rooms; ++i) {
    auto e = s.next();
    if (!e || (i == 0 ? e->event != "connected" : e->event != "subscribed")) {
      ADD_FAILURE() << "no opening:\n" << s.output();
      return false;
    }
  }
  return true;
}

// The next `n` publications, as room + offset ("x4"), skipping presence.
std::vector<std::string> pubs(SseStream& s, std::size_t n) {
  std::vector<std::string> out;
  while (out.size() < n) {
    auto e = s.next();
    if (!e) {
      ADD_FAILURE() << "after " << out.size() << " of " << n << ":\n" << s.output();
      break;
    }
    if (!json_has(e->data, "/pub")) continue;
    out.push_back(json_str(e->data, "/pub/room").value_or("?") +
                  std::to_string(json_uint(e->data, "/pub/offset").value_or(0)));
  }
  return out;
}

TEST(ClusterSse, AStreamGetsTheOtherNodesPublicationsAndResumesOnEitherNode) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  auto first = std::make_unique<SseStream>(b.port, "/sse?room=x&room=y&user=u");
  ASSERT_TRUE(opened(*first, 2));
  for (int i = 1; i <= 3; ++i) api_publish(a.port, "x", std::to_string(i));
  EXPECT_EQ(pubs(*first, 3), (std::vector<std::string>{"x1", "x2", "x3"}));
  const std::string id = first->last_id();
  EXPECT_THAT(id, ::testing::StartsWith("x."));
  EXPECT_THAT(id, ::testing::HasSubstr(".3,y."));
  first->cut();

  // Missed, published on both nodes.
  for (int i = 4; i <= 6; ++i) api_publish(i % 2 ? a.port : b.port, "x", std::to_string(i));
  api_publish(b.port, "y", "1");

  // Resumed on the other node: every missed one once, in order, then live.
  SseStream on_a(a.port, "/sse?room=x&room=y&user=u", {"Last-Event-ID: " + id});
  auto connected = on_a.next();
  ASSERT_TRUE(connected && connected->event == "connected") << on_a.output();
  for (const char* room : {"x", "y"}) {
    auto sub = on_a.next();
    ASSERT_TRUE(sub) << on_a.output();
    EXPECT_EQ(sub->event, "subscribed");
    EXPECT_EQ(json_str(sub->data, "/room"), room);
    EXPECT_EQ(json_bool(sub->data, "/recovered"), true) << sub->data;
  }
  api_publish(b.port, "x", "7");
  EXPECT_EQ(pubs(on_a, 5), (std::vector<std::string>{"x4", "x5", "x6", "y1", "x7"}));

  // And back on the first node from where the second left it.
  const std::string later = on_a.last_id();
  api_publish(a.port, "y", "2");
  SseStream on_b(b.port, "/sse?room=x&room=y&user=u", {"Last-Event-ID: " + later});
  ASSERT_TRUE(opened(on_b, 2));
  EXPECT_EQ(pubs(on_b, 1), (std::vector<std::string>{"y2"}));
  // Nothing more but presence (join/leave are on in these nodes).
  while (auto more = on_b.next(std::chrono::milliseconds(300))) {
    EXPECT_FALSE(json_has(more->data, "/pub")) << more->data;
  }

  // A position of another epoch cannot be resumed, and the stream says so.
  SseStream stale(b.port, "/sse?room=x&user=u", {"Last-Event-ID: x.0000dead.2"});
  ASSERT_TRUE(stale.next());  // connected
  auto recovery = stale.next();
  ASSERT_TRUE(recovery) << stale.output();
  EXPECT_EQ(recovery->event, "recovery");
  EXPECT_EQ(json_bool(recovery->data, "/recovered"), false);
  EXPECT_EQ(json_uint(recovery->data, "/offset"), 7u);
}

// A hole the node cannot fill (the history lost a publication): the stream
// is ended with 3005 rather than continued across the hole, and resuming
// from its last id says the room could not be recovered.
TEST(ClusterSse, AStreamResetEndsTheStreamAndTheResumeSaysSo) {
  RedisServer redis;
  Daemon a(cluster_flags(redis.port())), b(cluster_flags(redis.port()));
  SseStream s(a.port, "/sse?room=chat:h&user=u");
  ASSERT_TRUE(opened(s, 1));
  api_publish(b.port, "chat:h", "1");
  ASSERT_EQ(pubs(s, 1), (std::vector<std::string>{"chat:h1"}));
  const std::string id = s.last_id();
  // Offset 2 is lost from the channel and from the history.
  redis.command({"HINCRBY", "herald:{chat:h}:m", "top", "1"});
  redis.command({"DEL", "herald:{chat:h}:h"});
  api_publish(b.port, "chat:h", "3");
  std::optional<SseEvent> e;
  while ((e = s.next())) {
    ASSERT_FALSE(json_has(e->data, "/pub")) << "delivered across a hole: " << e->data;
    if (json_has(e->data, "/disconnect")) break;
  }
  ASSERT_TRUE(e) << s.output();
  EXPECT_EQ(json_uint(e->data, "/disconnect/code"), 3005u);
  EXPECT_TRUE(s.wait_ended());

  SseStream again(a.port, "/sse?room=chat:h&user=u", {"Last-Event-ID: " + id});
  ASSERT_TRUE(again.next());  // connected
  auto recovery = again.next();
  ASSERT_TRUE(recovery) << again.output();
  EXPECT_EQ(recovery->event, "recovery");
  EXPECT_EQ(json_bool(recovery->data, "/recovered"), false);
}

}  // namespace
}  // namespace herald::test
