// The pure pieces of the SSE stream: the event id that carries every room's
// position (sse/stream_id.hpp), the query string reader (http/query.hpp),
// the stream position read from a push frame (protocol/encode.hpp) and what
// the opening events say (codec/herald_sse.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gateway/codec/herald_sse.hpp"
#include "gateway/http/query.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/sse/stream_id.hpp"

namespace herald::gateway {
namespace {

using protocol::RoomPositions;
using protocol::StreamPosition;
using ::testing::HasSubstr;

RoomPositions parsed(std::string_view id) {
  auto r = sse::parse_stream_id(id);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<RoomPositions>(r);
}

std::string error_of(std::string_view id) {
  auto r = sse::parse_stream_id(id);
  EXPECT_TRUE(std::holds_alternative<std::string>(r)) << "accepted: " << id;
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(SseStreamId, FormatsEveryRoomInOrder) {
  RoomPositions p{{"chat:lobby", {"5f2c9a1e", 7}}, {"news", {"b1e3a07c", 0}}};
  EXPECT_EQ(sse::format_stream_id(p), "chat:lobby.5f2c9a1e.7,news.b1e3a07c.0");
}

TEST(SseStreamId, RoundTripsRoomsWithDotsAndEveryAllowedCharacter) {
  RoomPositions p{{"a.b.c", {"e1", 3}},
                  {"ns:x_y-z.1@h/p=q+r~s!", {"", 0}},
                  {"big", {"E_-9", 18446744073709551615ull}},
                  {"$dialog#42,43", {"e2", 1}}};
  const std::string id = sse::format_stream_id(p);
  // Header safe, and no byte a header or an SSE id line cannot carry or
  // that would end a URL's query; '%' only in the escapes of '#' and ','.
  for (char c : id) EXPECT_TRUE(c > ' ' && c < 127 && c != '&' && c != '#' && c != '?') << id;
  EXPECT_NE(id.find("$dialog%2342%2C43.e2.1"), std::string::npos) << id;
  EXPECT_EQ(parsed(id), p);
}

TEST(SseStreamId, EmptyIdNamesNoRoom) {
  EXPECT_TRUE(parsed("").empty());
}

TEST(SseStreamId, RefusesWhatIsNotAPosition) {
  EXPECT_THAT(error_of("news"), HasSubstr("'news' is not ROOM.EPOCH.OFFSET"));
  EXPECT_THAT(error_of("news.7"), HasSubstr("is not ROOM.EPOCH.OFFSET"));
  EXPECT_THAT(error_of("news.e.x"), HasSubstr("the offset must be a decimal number"));
  EXPECT_THAT(error_of("news.e."), HasSubstr("the offset must be a decimal number"));
  EXPECT_THAT(error_of("news.e.-1"), HasSubstr("the offset must be a decimal number"));
  EXPECT_THAT(error_of("news.e.18446744073709551616"), HasSubstr("below 2^64"));
  EXPECT_THAT(error_of("news.e!.1"), HasSubstr("the epoch must be"));
  EXPECT_THAT(error_of(std::string("news.") + std::string(65, 'a') + ".1"),
              HasSubstr("the epoch must be at most 64"));
  EXPECT_THAT(error_of(".e.1"), HasSubstr("'.e.1'"));
  EXPECT_THAT(error_of("bad room.e.1"), HasSubstr("'bad room.e.1'"));
  EXPECT_THAT(error_of("a.e.1,a.e.2"), HasSubstr("room 'a' is named twice"));
  EXPECT_THAT(error_of("a.e.1,"), HasSubstr("ends with an empty entry"));
  EXPECT_THAT(error_of("a.e.1,,b.e.1"), HasSubstr("entry ''"));
  EXPECT_THAT(error_of("a%41.e.1"), HasSubstr("only escapes are %23"));
  EXPECT_THAT(error_of("a%2.e.1"), HasSubstr("only escapes are %23"));
  EXPECT_EQ(parsed("d%23a%2Cb.e.1"), (RoomPositions{{"d#a,b", {"e", 1}}}));
}

TEST(HttpQuery, DecodesRepeatedKeysInOrder) {
  auto r = http::parse_query("/sse?room=chat%3Alobby&room=news&user=al+ice&flag&=x&&");
  ASSERT_TRUE(std::holds_alternative<http::QueryParams>(r));
  const auto& q = std::get<http::QueryParams>(r);
  EXPECT_EQ(http::query_values(q, "room"), (std::vector<std::string>{"chat:lobby", "news"}));
  EXPECT_EQ(http::query_value(q, "user"), "al ice");
  EXPECT_EQ(http::query_value(q, "flag"), "");
  EXPECT_EQ(http::query_value(q, "absent"), "");
  EXPECT_EQ(http::query_value(q, ""), "x");
}

TEST(HttpQuery, NoQueryIsEmpty) {
  auto r = http::parse_query("/sse");
  ASSERT_TRUE(std::holds_alternative<http::QueryParams>(r));
  EXPECT_TRUE(std::get<http::QueryParams>(r).empty());
}

TEST(HttpQuery, RefusesABrokenEscape) {
  for (const char* target : {"/sse?room=%", "/sse?room=%4", "/sse?room=%zz", "/sse?%4=x"}) {
    auto r = http::parse_query(target);
    ASSERT_TRUE(std::holds_alternative<std::string>(r)) << target;
    EXPECT_THAT(std::get<std::string>(r), HasSubstr("not followed by two hex digits"));
  }
}

TEST(StreamPositionInPush, ReadsTheEncodersOwnFrames) {
  auto p = protocol::stream_position_in_push(protocol::encode_pub_push(
      "chat:lobby", 42, "5f2c9a1e", R"({"offset":1,"epoch":"x"})", R"({"user":"a"})"));
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (StreamPosition{"5f2c9a1e", 42}));
}

TEST(StreamPositionInPush, NoneOutsideTheStreamOrForOtherPushes) {
  EXPECT_FALSE(protocol::stream_position_in_push(
      protocol::encode_live_pub_push("r", R"({"offset":1,"epoch":"x"})", {})));
  EXPECT_FALSE(protocol::stream_position_in_push(
      protocol::encode_presence_push(true, "r", R"({"user":"a"})")));
  EXPECT_FALSE(protocol::stream_position_in_push(
      protocol::encode_disconnect(protocol::DisconnectCode::shutdown)));
  EXPECT_FALSE(protocol::stream_position_in_push(R"({"pub":{"room":"r","offset":)"));
}

}  // namespace
}  // namespace herald::gateway

namespace herald::gateway {
namespace {

// What the opening events say (codec/herald_sse.hpp), as docs/protocol.md
// shows them; sse_test reads them off a real stream.
TEST(HeraldSse, OpeningEventsSayWhatTheProtocolPageShows) {
  namespace sse_codec = codec::herald_sse;
  const std::vector<protocol::ServerSubscription> none;
  EXPECT_EQ(sse_codec::connected(protocol::ConnectReply{"c1", "bob", std::nullopt, {}, none}),
            R"({"client":"c1","user":"bob","version":")" HERALD_VERSION R"("})");
  EXPECT_EQ(sse_codec::subscribed("chat:lobby", StreamPosition{"e1", 4}, true),
            R"({"room":"chat:lobby","epoch":"e1","offset":4,"recovered":true})");
  EXPECT_EQ(sse_codec::recovery("chat:lobby", StreamPosition{"e2", 9}),
            R"({"room":"chat:lobby","recovered":false,"epoch":"e2","offset":9})");
  EXPECT_EQ(sse_codec::refused("gated:x",
                               protocol::BrokerError{protocol::ErrorCode::not_available, "no"}),
            R"({"room":"gated:x","error":{"code":108,"message":"no"}})");
  EXPECT_EQ(sse_codec::disconnect(3001, "shutdown", true),
            R"({"disconnect":{"code":3001,"reason":"shutdown","reconnect":true}})");
  // The position an event id carries, read from a publication's line.
  const auto at = sse_codec::position_of(
      protocol::encode_pub_push("chat:lobby", 7, "e3", R"({"t":1})", R"({"client":"c"})"));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(*at, (StreamPosition{"e3", 7}));
}

}  // namespace
}  // namespace herald::gateway
