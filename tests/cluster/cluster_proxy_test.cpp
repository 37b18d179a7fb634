// The backend hooks in cluster mode: two heraldd nodes over one real
// redis-server and one real application backend (support/backend.mjs). A
// hook is called by the node that holds the client; a server-side
// subscription is an ordinary subscription of the room's stream, so a
// client that reconnects to another node recovers exactly what it missed
// by giving its position in connect's subs.
#include <gtest/gtest.h>

#include "cluster_support.hpp"
#include "gateway/proxy_backend.hpp"

namespace herald::test {
namespace {

std::unique_ptr<WsClient> with_cookie(std::uint16_t port, const std::string& user) {
  return std::make_unique<WsClient>("127.0.0.1", port, "/ws", "",
                                    WsClient::Headers{{"Cookie", "session=" + user}});
}

TEST(ClusterProxy, ServerSideSubscriptionsRecoverOnAnotherNode) {
  RedisServer redis;
  Backend backend;
  const auto flags = cluster_flags(
      redis.port(), {"--proxy.connect_url", backend.url("connect"), "--proxy.publish_url",
                     backend.url("publish"), "--rooms.publish_proxy", "true"});
  auto a = std::make_unique<Daemon>(flags);
  Daemon b(flags);

  auto sam = with_cookie(a->port, "sam");
  auto r = request(*sam, 1, R"({"id":1,"connect":{"data":{"rooms":["chat:r"]}}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(json_uint(*r, "/result/subs/chat:r/offset"), 0u) << *r;

  // The publisher is on b: b asks the backend, which rewrites.
  auto pat = with_cookie(b.port, "pat");
  ASSERT_TRUE(request(*pat, 1, R"({"id":1,"connect":{}})"));
  EXPECT_TRUE(json_has(publish(*pat, 2, "chat:r", R"({"text":"/shrug"})"), "/result"));
  EXPECT_TRUE(json_has(publish(*pat, 3, "chat:r", R"({"text":"two"})"), "/result"));
  auto first = next_pub(*sam);
  ASSERT_TRUE(first);
  EXPECT_EQ(json_str(*first, "/pub/data/text"), "¯\\_(ツ)_/¯") << *first;
  auto last = next_pub(*sam);
  ASSERT_TRUE(last);
  EXPECT_EQ(json_uint(*last, "/pub/offset"), 2u) << *last;

  // Node a dies with sam on it; the room goes on through b.
  a->proc->signal(SIGKILL);
  (void)a->proc->wait_exit(std::chrono::seconds(5));
  sam.reset();
  EXPECT_TRUE(json_has(publish(*pat, 4, "chat:r", R"({"text":"three"})"), "/result"));
  EXPECT_TRUE(json_has(publish(*pat, 5, "chat:r", R"({"text":"four"})"), "/result"));

  // Sam comes back on b, giving where it stopped: exactly 3 and 4.
  auto again = with_cookie(b.port, "sam");
  const std::string since =
      R"({"epoch":")" + json_str(*last, "/pub/epoch").value_or("") + R"(","offset":2})";
  auto back =
      request(*again, 1,
              R"({"id":1,"connect":{"data":{"rooms":["chat:r"]},"subs":{"chat:r":{"since":)" +
                  since + "}}}}");
  ASSERT_TRUE(back);
  EXPECT_EQ(json_bool(*back, "/result/subs/chat:r/recovered"), true) << *back;
  ASSERT_EQ(json_size(*back, "/result/subs/chat:r/publications"), 2u) << *back;
  EXPECT_EQ(json_str(*back, "/result/subs/chat:r/publications/0/data/text"), "three") << *back;
  EXPECT_EQ(json_uint(*back, "/result/subs/chat:r/publications/1/offset"), 4u) << *back;
  // And live from there.
  EXPECT_TRUE(json_has(publish(*pat, 6, "chat:r", R"({"text":"five"})"), "/result"));
  auto live = next_pub(*again);
  ASSERT_TRUE(live);
  EXPECT_EQ(json_uint(*live, "/pub/offset"), 5u) << *live;
}

// A publication the backend keeps out of the stream is a plain PUBLISH:
// subscribers on every node get it with no offset, and Redis's offsets and
// history go on without it.
TEST(ClusterProxy, SkipHistoryReachesEveryNodeOutsideTheStream) {
  RedisServer redis;
  Backend backend;
  const auto flags = cluster_flags(redis.port(), {"--proxy.publish_url", backend.url("publish"),
                                                  "--rooms.publish_proxy", "true"});
  Daemon a(flags);
  Daemon b(flags);
  auto sam = connect_as(a.port, "sam");
  auto sub = request(*sam, 2, R"({"id":2,"subscribe":{"room":"chat:r"}})");
  ASSERT_TRUE(sub);
  auto pat = connect_as(b.port, "pat");
  EXPECT_EQ(json_uint(publish(*pat, 2, "chat:r", R"({"text":"one"})"), "/result/offset"), 1u);
  EXPECT_EQ(publish(*pat, 3, "chat:r", R"({"text":"/live is typing"})"), R"({"id":3,"result":{}})");
  EXPECT_EQ(json_uint(publish(*pat, 4, "chat:r", R"({"text":"two"})"), "/result/offset"), 2u);
  auto one = next_pub(*sam);
  auto live = next_pub(*sam);
  auto two = next_pub(*sam);
  ASSERT_TRUE(one && live && two);
  EXPECT_EQ(json_uint(*one, "/pub/offset"), 1u) << *one;
  EXPECT_EQ(json_str(*live, "/pub/data/text"), "is typing") << *live;
  EXPECT_FALSE(json_has(*live, "/pub/offset")) << *live;
  EXPECT_EQ(json_uint(*two, "/pub/offset"), 2u) << *two;
  auto h = request(*sam, 3, R"({"id":3,"history":{"room":"chat:r"}})");
  ASSERT_TRUE(h);
  EXPECT_EQ(json_size(*h, "/result/publications"), 2u) << *h;
  // No node saw a hole: nobody was reset.
  EXPECT_TRUE(json_has(publish(*pat, 5, "chat:r", R"({"text":"three"})"), "/result"));
  auto three = next_pub(*sam);
  ASSERT_TRUE(three);
  EXPECT_EQ(json_uint(*three, "/pub/offset"), 3u) << *three;
}

}  // namespace
}  // namespace herald::test
