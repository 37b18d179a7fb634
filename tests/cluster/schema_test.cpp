// The cluster's Redis schema: frames built by the publish script equal the
// embedded broker's, the scripts bound the history, and the parsers of
// channel messages, presence values and read replies take exactly their
// format (fuzz/cluster_messages.cpp fuzzes them).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gateway/broker/redis_schema.hpp"
#include "gateway/protocol/encode.hpp"
#include "redis_server.hpp"

namespace herald::gateway {
namespace {

using namespace broker::redis_schema;

struct FrameCase {
  const char* name;
  std::string room, data, info, moderation{}, tags{};
};

TEST(ClusterSchema, FramePartsAroundOffsetAndEpochEqualTheEmbeddedEncoder) {
  const std::vector<FrameCase> cases = {
      {"plain", "chat:lobby", R"({"text":"hi"})", ""},
      {"with info", "chat:lobby", R"([1,2])", R"({"user":"a","client":"c1"})"},
      {"escaped room", "r\"o\\om", R"("x")", ""},
      {"unicode", "chat:\xc3\xa9t\xc3\xa9", R"({"t":"\u00e9"})", R"({"user":"\u00e9"})"},
      {"offset text in data", "r", R"({"offset":0,"epoch":""})", ""},
      {"moderated", "chat:m", R"({"text":"a ***"})", R"({"user":"a"})",
       R"({"masked":1,"flagged":0,"categories":[]})"},
      {"tagged", "chat:t", "1", "", "", R"({"epoch":"","offset":"0"})"},
  };
  std::set<std::string> names;
  for (const auto& c : cases) {
    ASSERT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
    const FrameParts parts = frame_parts(c.room, c.data, c.info, c.moderation, c.tags);
    for (std::uint64_t offset : {1ull, 42ull, 9007199254740991ull}) {
      EXPECT_EQ(assemble_frame(parts, offset, "5f2c9a1e"),
                protocol::encode_pub_push(c.room, offset, "5f2c9a1e", c.data, c.info, c.moderation,
                                          c.tags))
          << c.name;
    }
  }
}

TEST(ClusterSchema, ChannelMessages) {
  auto p = parse_channel_message("p 7 abcd {\"pub\":{}}");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->publication);
  EXPECT_EQ(p->offset, 7u);
  EXPECT_EQ(p->epoch, "abcd");
  EXPECT_EQ(p->frame, "{\"pub\":{}}");
  auto e = parse_channel_message("e {\"join\":{}}");
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->publication);
  EXPECT_EQ(e->frame, "{\"join\":{}}");
  // A publication outside the stream travels as an event.
  const std::string live = protocol::encode_live_pub_push("r", "1", "");
  const std::string message = event_message(live);
  auto l = parse_channel_message(message);
  ASSERT_TRUE(l);
  EXPECT_FALSE(l->publication);
  EXPECT_EQ(l->frame, live);
  for (const char* bad : {"", "p", "p ", "p 0 e f", "p x e f", "p 7", "p 7 e", "p 7 e ", "p 7  f",
                          "e ", "x 1 e f", "p -1 e f", "p 07 e f", "p 99999999999999999999 e f"}) {
    EXPECT_FALSE(parse_channel_message(bad)) << '"' << bad << '"';
  }
}

TEST(ClusterSchema, NodeValues) {
  const gateway::broker::NodeStats stats{5, 3, 7, 11, 1700000000, "0.1.0"};
  const std::string value = "1700000000000 " + node_body(12, "10.0.0.7", 8080, stats);
  auto v = parse_node_value(value);  // views into `value`
  ASSERT_TRUE(v);
  EXPECT_EQ(v->expires_ms, 1700000000000);
  EXPECT_EQ(v->connections, 12u);
  EXPECT_EQ(v->port, 8080);
  EXPECT_EQ(v->host, "10.0.0.7");
  EXPECT_EQ(v->stats, stats);
  // No version: written as "-", read back empty.
  auto unversioned = parse_node_value("1 2 3 h 0 0 0 0 0 -");
  ASSERT_TRUE(unversioned);
  EXPECT_EQ(unversioned->stats, gateway::broker::NodeStats{});
  // An entry of a Herald before the stats: read, stats zero.
  auto older = parse_node_value("1700000000000 12 8080 10.0.0.7");
  ASSERT_TRUE(older);
  EXPECT_EQ(older->host, "10.0.0.7");
  EXPECT_EQ(older->stats, gateway::broker::NodeStats{});
  for (const char* bad : {"", "1 2 3", "1 2 3 ", "1 2 70000 h", "1 2 3 h h", "x 2 3 h",
                          "1 2 3  0 0 0 0 0 v", "1 2 3 h 0 0 0 0 0", "1 2 3 h 0 0 0 0 0 ",
                          "1 2 3 h 0 0 x 0 0 v", "1 2 3 h 0 0 0 0 0 v w", "1 2 3 h 0 0 0 0 -1 v"}) {
    EXPECT_FALSE(parse_node_value(bad)) << '"' << bad << '"';
  }
}

TEST(ClusterSchema, PresenceValues) {
  auto v = parse_presence_value("1700000000000 5 alice{\"user\":\"alice\"}");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->expires_ms, 1700000000000);
  EXPECT_EQ(v->user, "alice");
  EXPECT_EQ(v->info_json, "{\"user\":\"alice\"}");
  EXPECT_EQ(presence_body("a b", "{}"), "3 a b{}");
  const std::string value = "1 " + presence_body("a b", "{}");
  auto spaced = parse_presence_value(value);  // views into `value`
  ASSERT_TRUE(spaced);
  EXPECT_EQ(spaced->user, "a b");
  for (const char* bad : {"", "1", "1 ", "1 9 abc", "x 1 a", "1 x a", "-1 1 a"}) {
    EXPECT_FALSE(parse_presence_value(bad)) << '"' << bad << '"';
  }
}

// The scripts against a real Redis: offsets, the size and age bounds of
// the history, what a read returns after a given offset.
class ClusterScripts : public ::testing::Test {
 protected:
  test::RedisServer redis;
  RoomKeys keys = room_keys("t:", "room");

  std::uint64_t publish(const std::string& data, std::uint32_t size, const std::string& ttl_ms) {
    FrameParts parts = frame_parts("room", data, "");
    auto r =
        redis.command({"EVAL", kPublishScript.text(), "2", keys.meta, keys.history, keys.channel,
                       "e1", std::to_string(size), ttl_ms, "600000", parts.head, parts.tail});
    EXPECT_EQ(r.elements.size(), 2u) << r.describe();
    return r.elements.empty() ? 0 : static_cast<std::uint64_t>(r.elements[0].integer);
  }
  std::optional<ReadReply> read(std::int64_t after, const std::string& ttl_ms = "60000") {
    auto r = redis.command({"EVAL", kReadScript.text(), "3", keys.meta, keys.history, keys.presence,
                            "1", "e2", std::to_string(after), ttl_ms, "600000", "", "", "1000",
                            keys.channel, ""});
    return parse_read_reply(r);
  }
};

// Every script is in all_scripts() (what the nodes load on connect), and
// its SHA is the one Redis computes.
TEST_F(ClusterScripts, EachScriptsShaIsTheOneScriptLoadReturns) {
  const std::vector<const redis::Script*> all = all_scripts();
  for (const redis::Script* script : {&kPublishScript, &kReadScript, &kLeaveScript,
                                      &kPresenceScript, &kRefreshScript, &kNodesScript}) {
    EXPECT_EQ(redis.command({"SCRIPT", "LOAD", script->text()}).str, script->sha());
    EXPECT_NE(std::find(all.begin(), all.end(), script), all.end()) << script->sha();
  }
  EXPECT_EQ(all.size(), 6u);
}

TEST_F(ClusterScripts, OffsetsHistorySizeAndReadsAfter) {
  for (int i = 1; i <= 10; ++i) EXPECT_EQ(publish(std::to_string(i), 5, "60000"), i);
  EXPECT_EQ(redis.command({"LLEN", keys.history}).integer, 5);
  // After 7: 8, 9, 10, as the embedded encoder writes them.
  auto r = read(7);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->epoch, "e1");  // the first publish's candidate; later ones are ignored
  EXPECT_EQ(r->top, 10u);
  EXPECT_EQ(r->first, 8u);
  ASSERT_EQ(r->frames.size(), 3u);
  EXPECT_EQ(r->frames[0], protocol::encode_pub_push("room", 8, "e1", "8", ""));
  // After 2: 3..5 are gone (size 5 keeps 6..10); first says so.
  r = read(2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 6u);
  EXPECT_EQ(r->frames.size(), 5u);
  // Nothing after the top; -1 asks for none.
  r = read(10);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->frames.empty());
  EXPECT_EQ(r->first, 11u);
  r = read(-1);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->frames.empty());
}

TEST_F(ClusterScripts, ExpiredPublicationsAreNotReturned) {
  for (int i = 1; i <= 3; ++i) publish(std::to_string(i), 100, "60000");
  // Entries carry the time Redis appended them; make the first two old
  // (1970) instead of waiting for them to age.
  for (int i = 0; i < 2; ++i) {
    std::string e = redis.command({"LINDEX", keys.history, std::to_string(i)}).str;
    redis.command({"LSET", keys.history, std::to_string(i), "1" + e.substr(e.find(' '))});
  }
  auto r = read(0);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->frames.size(), 1u);
  EXPECT_EQ(r->first, 3u);  // 1 and 2 expired: the gap after 0 is not covered
  EXPECT_EQ(r->top, 3u);
  // The next publish drops them from the list for good.
  publish("4", 100, "60000");
  EXPECT_EQ(redis.command({"LLEN", keys.history}).integer, 2);
}

TEST_F(ClusterScripts, AReadCreatesTheEpochOfANewRoomOnce) {
  auto r = read(-1);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->epoch, "e2");
  EXPECT_EQ(r->top, 0u);
  EXPECT_EQ(publish("1", 10, "60000"), 1u);
  r = read(0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->epoch, "e2");
  ASSERT_EQ(r->frames.size(), 1u);
}

TEST(ClusterSchema, ReadRepliesOfTheWrongShapeAreRefused) {
  using T = redis::Reply::Type;
  auto s = [](std::string v) { return redis::Reply{T::string, 0, std::move(v), {}}; };
  auto i = [](std::int64_t v) { return redis::Reply{T::integer, v, {}, {}}; };
  auto arr = [](std::vector<redis::Reply> e) {
    return redis::Reply{T::array, 0, {}, std::move(e)};
  };
  EXPECT_TRUE(parse_read_reply(arr({s("e"), i(3), i(4)})));
  EXPECT_TRUE(parse_read_reply(arr({s("e"), i(3), i(2), s("a"), s("b")})));
  EXPECT_FALSE(parse_read_reply(arr({s("e"), i(3), i(3)})));                // no frame for 3
  EXPECT_FALSE(parse_read_reply(arr({s("e"), i(3), i(2), s("a")})));        // frames end before top
  EXPECT_FALSE(parse_read_reply(arr({s("e"), i(3), i(2), s("a"), i(1)})));  // not a string
  EXPECT_FALSE(parse_read_reply(arr({i(1), i(3), i(4)})));
  EXPECT_FALSE(parse_read_reply(arr({s("e"), i(-1), i(0)})));
  EXPECT_FALSE(parse_read_reply(s("e")));
}

}  // namespace
}  // namespace herald::gateway
