// The Redis Cluster protocol's parsers (cluster_slots.hpp): CLUSTER SLOTS
// replies and MOVED/ASK redirections, of the right shape and of every wrong
// one (fuzz/cluster_messages.cpp fuzzes the redirections). The slot function
// is checked against a real Redis Cluster's CLUSTER KEYSLOT in
// tests/cluster/redis_cluster_test.cpp.
#include "redis/cluster_slots.hpp"

#include <gtest/gtest.h>

namespace herald::redis {
namespace {

TEST(ClusterSlots, HashTagIsTheFirstNonEmptyBraces) {
  EXPECT_EQ(hash_tag("herald:{chat:lobby}:m"), "chat:lobby");
  EXPECT_EQ(hash_tag("plain"), "plain");
  EXPECT_EQ(hash_tag("a{}b{c}"), "a{}b{c}");  // empty first braces: the whole key
  EXPECT_EQ(hash_tag("a{b}{c}"), "b");
  EXPECT_EQ(hash_tag("a{bc"), "a{bc");
  EXPECT_EQ(key_slot("x{tag}y"), key_slot("tag"));
}

TEST(ClusterSlots, ClusterSlotsReplies) {
  using T = Reply::Type;
  auto s = [](std::string v) { return Reply{T::string, 0, std::move(v), {}}; };
  auto i = [](std::int64_t v) { return Reply{T::integer, v, {}, {}}; };
  auto arr = [](std::vector<Reply> e) { return Reply{T::array, 0, {}, std::move(e)}; };
  auto range = [&](int a, int b, std::string host, int port) {
    return arr({i(a), i(b), arr({s(std::move(host)), i(port), s("id")})});
  };
  auto map = parse_cluster_slots(
      arr({range(0, 5460, "10.0.0.1", 7000), range(5461, 10922, "10.0.0.2", 7001),
           range(10923, 16383, "10.0.0.1", 7000)}));
  ASSERT_TRUE(map);
  ASSERT_EQ(map->masters.size(), 2u);  // one master with two ranges counts once
  EXPECT_EQ(map->owner[0], 0);
  EXPECT_EQ(map->owner[5461], 1);
  EXPECT_EQ(map->owner[16383], 0);
  // A slot uncovered (the cluster is not ready), a bad range or port, a
  // non-array: refused.
  EXPECT_FALSE(parse_cluster_slots(arr({range(0, 16000, "h", 1)})));
  EXPECT_FALSE(parse_cluster_slots(arr({range(10, 5, "h", 1), range(0, 16383, "h", 1)})));
  EXPECT_FALSE(parse_cluster_slots(arr({range(0, 16384, "h", 1)})));
  EXPECT_FALSE(parse_cluster_slots(arr({range(0, 16383, "h", 70000)})));
  EXPECT_FALSE(parse_cluster_slots(s("x")));
}

TEST(ClusterSlots, RedirectionReplies) {
  using T = Reply::Type;
  auto err = [](std::string v) { return Reply{T::error, 0, std::move(v), {}}; };
  auto moved = parse_redirect(err("MOVED 3999 127.0.0.1:6381"));
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->kind, Redirect::Kind::moved);
  EXPECT_EQ(moved->slot, 3999);
  EXPECT_EQ(moved->to, (config::Endpoint{"127.0.0.1", 6381}));
  auto ask = parse_redirect(err("ASK 16383 10.0.0.2:7000"));
  ASSERT_TRUE(ask);
  EXPECT_EQ(ask->kind, Redirect::Kind::ask);
  EXPECT_EQ(ask->slot, 16383);
  EXPECT_EQ(ask->to, (config::Endpoint{"10.0.0.2", 7000}));
  // No host: the answering node's (the caller's to fill in).
  auto unnamed = parse_redirect(err("MOVED 0 :6380"));
  ASSERT_TRUE(unnamed);
  EXPECT_EQ(unnamed->to, (config::Endpoint{"", 6380}));
  // IPv6, bare as Redis writes it, or bracketed.
  EXPECT_EQ(parse_redirect(err("ASK 1 ::1:6380"))->to, (config::Endpoint{"::1", 6380}));
  EXPECT_EQ(parse_redirect(err("ASK 1 [::1]:6380"))->to, (config::Endpoint{"::1", 6380}));
  // Anything else is not a redirection.
  for (const char* bad : {"MOVED 16384 h:1", "MOVED -1 h:1", "MOVED x h:1", "MOVED 1 h",
                          "MOVED 1 h:0", "MOVED 1 h:65536", "MOVED 1", "MOVED  1 h:1",
                          "ASK 1 h:1 extra", "NOSCRIPT No matching script", "ERR MOVED 1 h:1",
                          "TRYAGAIN Multiple keys request during rehashing of slot"}) {
    EXPECT_FALSE(parse_redirect(err(bad))) << bad;
  }
  EXPECT_FALSE(parse_redirect(Reply{T::string, 0, "MOVED 1 h:1", {}}));
  EXPECT_FALSE(parse_redirect(Reply{T::status, 0, "MOVED 1 h:1", {}}));
}

}  // namespace
}  // namespace herald::redis
