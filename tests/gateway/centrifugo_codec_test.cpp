// Centrifugo's client protocol codec (codec/centrifugo_json.hpp) on its
// own: what each command line decodes to, and what each reply, error,
// disconnect and push looks like, read back with simdjson (an independent
// JSON reader) against the shapes of centrifugal/protocol's client.proto
// and what centrifuge-js reads. The SDK itself drives the endpoint in
// tests/node/centrifuge_sdk.test.mjs.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <string>
#include <vector>

#include "core/time/unix_clock.hpp"
#include "gateway/codec/centrifugo_codes.hpp"
#include "gateway/codec/centrifugo_json.hpp"
#include "gateway/protocol/encode.hpp"

namespace herald::gateway {
namespace {

namespace dom = simdjson::dom;
using codec::CentrifugoJson;
using protocol::Command;
using protocol::CommandError;
using protocol::ErrorCode;

// Collects what a frame decodes to.
struct Collected final : codec::CommandSink {
  std::vector<Command> commands;
  std::vector<CommandError> refused;
  bool on_command(Command& c) override {
    commands.push_back(std::move(c));
    return true;
  }
  bool on_refused(const CommandError& e) override {
    refused.push_back(e);
    return true;
  }
};

Collected decode(std::string_view frame) {
  CentrifugoJson codec(64 * 1024, std::chrono::seconds(15));
  Collected out;
  codec.decode(frame, out);
  return out;
}

template <class T>
T only(std::string_view line) {
  Collected c = decode(line);
  EXPECT_TRUE(c.refused.empty()) << (c.refused.empty() ? "" : c.refused[0].message);
  EXPECT_EQ(c.commands.size(), 1U) << line;
  if (c.commands.size() != 1 || !std::holds_alternative<T>(c.commands[0].body)) {
    ADD_FAILURE() << "not the expected command: " << line;
    return T{};
  }
  return std::get<T>(c.commands[0].body);
}

CommandError refusal(std::string_view line) {
  Collected c = decode(line);
  EXPECT_TRUE(c.commands.empty()) << line;
  EXPECT_EQ(c.refused.size(), 1U) << line;
  return c.refused.empty() ? CommandError{} : c.refused[0];
}

// A JSON document kept alive with its parser, for reading fields.
struct Doc {
  explicit Doc(const std::string& json) : text(json) {
    if (parser.parse(text).get(root) != simdjson::SUCCESS) ADD_FAILURE() << "not JSON: " << json;
  }
  std::string text;
  dom::parser parser;
  dom::element root;
};

TEST(CentrifugoDecode, ConnectReadsTokenDataAndRecoverableSubs) {
  auto c = only<protocol::ConnectCmd>(
      R"({"id":1,"connect":{"token":"T","data":{"a": 1},"name":"js","version":"5.8.0",)"
      R"("subs":{"news":{"recover":true,"epoch":"e1","offset":7},"fresh":{}}}})");
  EXPECT_EQ(c.token, "T");
  EXPECT_EQ(c.data, R"({"a":1})");
  ASSERT_EQ(c.subs.size(), 1U);  // only a sub that asks to recover has a position
  EXPECT_EQ(c.subs[0].first, "news");
  EXPECT_EQ(c.subs[0].second, (protocol::StreamPosition{"e1", 7}));
}

TEST(CentrifugoDecode, SubscribeRecoversOnlyWhenAsked) {
  auto with = only<protocol::SubscribeCmd>(
      R"({"id":2,"subscribe":{"channel":"chat:lobby","recover":true,"offset":41,"epoch":"x",)"
      R"("flag":1,"positioned":true,"recoverable":true,"join_leave":true}})");
  EXPECT_EQ(with.room, "chat:lobby");
  ASSERT_TRUE(with.since);
  EXPECT_EQ(*with.since, (protocol::StreamPosition{"x", 41}));
  // Recovery from the start of a stream: offset 0 is left out by the SDK.
  auto zero = only<protocol::SubscribeCmd>(
      R"({"id":3,"subscribe":{"channel":"c","recover":true,"epoch":"x"}})");
  ASSERT_TRUE(zero.since);
  EXPECT_EQ(zero.since->offset, 0U);
  auto without = only<protocol::SubscribeCmd>(
      R"({"id":4,"subscribe":{"channel":"c","offset":5,"epoch":"x","data":[1,2]}})");
  EXPECT_FALSE(without.since);
  EXPECT_EQ(without.data, "[1,2]");
  // join_leave, the SDK's joinLeave: asked, or not (absent is not).
  EXPECT_EQ(with.join_leave, true);
  EXPECT_EQ(without.join_leave, false);
}

TEST(CentrifugoDecode, PublishHistoryPresenceRpcUnsubscribe) {
  auto pub = only<protocol::PublishCmd>(R"({"id":5,"publish":{"channel":"c","data":{"t": "hi"}}})");
  EXPECT_EQ(pub.room, "c");
  EXPECT_EQ(pub.data, R"({"t":"hi"})");
  EXPECT_EQ(only<protocol::UnsubscribeCmd>(R"({"id":6,"unsubscribe":{"channel":"c"}})").room, "c");
  EXPECT_EQ(only<protocol::PresenceCmd>(R"({"id":7,"presence":{"channel":"c"}})").room, "c");
  EXPECT_EQ(only<protocol::PresenceStatsCmd>(R"({"id":8,"presence_stats":{"channel":"c"}})").room,
            "c");
  auto rpc = only<protocol::RpcCmd>(R"({"id":9,"rpc":{"method":"m","data":{"x":1}}})");
  EXPECT_EQ(rpc.method, "m");
  EXPECT_EQ(rpc.data, R"({"x":1})");
}

TEST(CentrifugoDecode, RefreshCarriesTheNewToken) {
  EXPECT_EQ(only<protocol::RefreshCmd>(R"({"id":3,"refresh":{"token":"T2"}})").token, "T2");
  auto sub =
      only<protocol::SubRefreshCmd>(R"({"id":4,"sub_refresh":{"channel":"$c","token":"S"}})");
  EXPECT_EQ(sub.room, "$c");
  EXPECT_EQ(sub.token, "S");
  EXPECT_EQ(
      only<protocol::SubscribeCmd>(R"({"id":5,"subscribe":{"channel":"$c","token":"S"}})").token,
      "S");
}

TEST(CentrifugoDecode, HistoryLimitFollowsCentrifugo) {
  // Absent or 0: the position only; -1: everything kept; N: at most N.
  EXPECT_EQ(only<protocol::HistoryCmd>(R"({"id":1,"history":{"channel":"c"}})").limit, 0U);
  EXPECT_EQ(only<protocol::HistoryCmd>(R"({"id":1,"history":{"channel":"c","limit":0}})").limit,
            0U);
  EXPECT_FALSE(
      only<protocol::HistoryCmd>(R"({"id":1,"history":{"channel":"c","limit":-1}})").limit);
  auto h = only<protocol::HistoryCmd>(
      R"({"id":1,"history":{"channel":"c","limit":10,"since":{"offset":40},"reverse":true}})");
  EXPECT_EQ(h.limit, 10U);
  ASSERT_TRUE(h.since);
  EXPECT_EQ(*h.since, (protocol::StreamPosition{"", 40}));
  EXPECT_TRUE(h.reverse);
  EXPECT_EQ(refusal(R"({"id":1,"history":{"channel":"c","limit":-2}})").message,
            "history.limit: expected an integer from -1 to 2147483647");
}

TEST(CentrifugoDecode, PongAndSendAskNothingAndAFrameHoldsManyLines) {
  Collected c = decode(
      "{}\n{\"send\":{\"data\":{}}}\n{\"id\":1,\"connect\":{}}\n"
      "{\"id\":2,\"subscribe\":{\"channel\":\"a\"}}\n");
  EXPECT_TRUE(c.refused.empty());
  ASSERT_EQ(c.commands.size(), 2U);
  EXPECT_EQ(c.commands[0].id, 1U);
  EXPECT_EQ(c.commands[1].id, 2U);
}

TEST(CentrifugoDecode, RefusalsSayWhatAndKeepTheIdWhenThereIsOne) {
  // No usable id: the core closes the connection (bad request).
  EXPECT_EQ(refusal("{\"id\":1,").id, 0U);
  EXPECT_EQ(refusal("[1]").message, "a command must be a JSON object");
  EXPECT_EQ(refusal(R"({"subscribe":{"channel":"c"}})").message,
            "subscribe needs an \"id\" (1..4294967295)");
  EXPECT_EQ(refusal(R"({"id":4294967296,"connect":{}})").id, 0U);
  // With an id, an error reply and the connection goes on.
  CommandError unknown = refusal(R"({"id":3,"bogus":{}})");
  EXPECT_EQ(unknown.id, 3U);
  EXPECT_EQ(unknown.code, ErrorCode::unknown_command);
  CommandError missing = refusal(R"({"id":4,"publish":{"channel":"c"}})");
  EXPECT_EQ(missing.id, 4U);
  EXPECT_EQ(missing.message, "publish.data: expected a JSON value");
  EXPECT_EQ(refusal(R"({"id":5,"subscribe":{"channel":7}})").message,
            "subscribe.channel: expected a string");
  EXPECT_EQ(refusal(R"({"id":6,"connect":{"subs":{"news":{"recover":"yes"}}}})").message,
            "connect.subs.news.recover: expected true or false");
  EXPECT_EQ(refusal(R"({"id":6,"connect":{"subs":{"news":[]}}})").message,
            "connect.subs.news: expected an object {recover, epoch, offset}");
  EXPECT_EQ(refusal(R"({"id":6,"subscribe":"c"})").message,
            "subscribe: expected an object of parameters");
  EXPECT_EQ(refusal(R"({"id":7,"sub_refresh":{"channel":"c"}})").message,
            "sub_refresh.token: expected a string");
  EXPECT_EQ(refusal(R"({"id":8,"refresh":{}})").message, "refresh.token: expected a string");
  // Over the line limit: refused unparsed.
  CentrifugoJson small(16, std::chrono::seconds(15));
  Collected c;
  small.decode(R"({"id":1,"connect":{"token":"abcdef"}})", c);
  ASSERT_EQ(c.refused.size(), 1U);
  EXPECT_EQ(c.refused[0].message, "command of 37 bytes is over the limit of 16");
}

TEST(CentrifugoEncode, RepliesAreKeyedByTheirCommandEvenWhenEmpty) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  EXPECT_EQ(codec.encode_reply(3, protocol::UnsubscribeReply{}), R"({"id":3,"unsubscribe":{}})");
  EXPECT_EQ(codec.encode_reply(4, protocol::PingReply{}), R"({"id":4,"ping":{}})");
  protocol::PublishResult published;
  published.offset = 9;
  published.epoch = "e";
  EXPECT_EQ(codec.encode_reply(5, protocol::PublishReply{published}), R"({"id":5,"publish":{}})");
  EXPECT_EQ(codec.encode_reply(6, protocol::RpcReply{R"({"ok":true})"}),
            R"({"id":6,"rpc":{"data":{"ok":true}}})");
}

std::string pub_line(std::uint64_t offset, std::string_view text) {
  return protocol::encode_pub_push(
      "chat", offset, "ep", std::string(R"({"text":")") + std::string(text) + "\"}",
      protocol::with_chan_info(protocol::encode_client_info("alice", "c1", R"({"n":1})"),
                               R"({"role":"op"})"));
}

TEST(CentrifugoEncode, SubscribeReplyCarriesPositionAndRecoveredPublications) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  protocol::SubscribeResult r;
  r.epoch = "ep";
  r.offset = 12;
  r.recovered = true;
  r.publications = {fanout::make_message(pub_line(11, "a")),
                    fanout::make_message(pub_line(12, "b"))};
  Doc d(codec.encode_reply(2, protocol::SubscribeReply{r, R"({"k":1})", true, std::nullopt}));
  dom::object s = d.root["subscribe"];
  EXPECT_TRUE(bool(s["recoverable"]));
  EXPECT_TRUE(bool(s["positioned"]));
  EXPECT_EQ(std::string_view(s["epoch"]), "ep");
  EXPECT_EQ(std::uint64_t(s["offset"]), 12U);
  EXPECT_TRUE(bool(s["was_recovering"]));
  EXPECT_TRUE(bool(s["recovered"]));
  EXPECT_EQ(std::int64_t(s["data"]["k"]), 1);
  dom::array pubs = s["publications"];
  ASSERT_EQ(pubs.size(), 2U);
  dom::object first = pubs.at(0);
  EXPECT_EQ(std::string_view(first["data"]["text"]), "a");
  EXPECT_EQ(std::uint64_t(first["offset"]), 11U);
  EXPECT_EQ(std::string_view(first["info"]["user"]), "alice");
  EXPECT_EQ(std::string_view(first["info"]["client"]), "c1");
  EXPECT_EQ(std::int64_t(first["info"]["conn_info"]["n"]), 1);
  EXPECT_EQ(std::string_view(first["info"]["chan_info"]["role"]), "op");

  // A recovery that did not hold: the new position, no publications (the
  // SDK would hand them to the application as if nothing was missed).
  r.recovered = false;
  Doc lost(codec.encode_reply(2, protocol::SubscribeReply{r, {}, true, std::nullopt}));
  dom::object l = lost.root["subscribe"];
  EXPECT_TRUE(bool(l["was_recovering"]));
  EXPECT_EQ(l["recovered"].error(), simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(l["publications"].error(), simdjson::NO_SUCH_FIELD);
}

// A subscription a token granted with an expiry: "expires" and the ttl
// (at least 1), in the subscribe reply and in sub_refresh's, also for a
// room with no stream (an otherwise empty result).
TEST(CentrifugoEncode, SubscriptionExpiryIsATtl) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  protocol::SubscribeResult none;
  Doc d(codec.encode_reply(3, protocol::SubscribeReply{none, {}, false, unix_now() + 60}));
  EXPECT_TRUE(bool(d.root["subscribe"]["expires"]));
  const std::int64_t ttl = d.root["subscribe"]["ttl"];
  EXPECT_GE(ttl, 59);
  EXPECT_LE(ttl, 60);
  Doc past(codec.encode_reply(4, protocol::SubRefreshReply{unix_now() - 5}));
  EXPECT_EQ(std::int64_t(past.root["sub_refresh"]["ttl"]), 1);
  EXPECT_EQ(codec.encode_reply(5, protocol::SubRefreshReply{std::nullopt}),
            R"({"id":5,"sub_refresh":{}})");
}

TEST(CentrifugoEncode, HistoryPresenceAndStatsAlwaysWriteTheirFields) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  protocol::HistoryResult h;
  h.epoch = "ep";
  h.offset = 0;
  EXPECT_EQ(codec.encode_reply(1, protocol::HistoryReply{h}),
            R"({"id":1,"history":{"publications":[],"epoch":"ep","offset":0}})");
  protocol::PresenceResult p;
  p.clients = {{"c1", "alice", protocol::encode_client_info("alice", "c1")},
               {"c2", "alice", protocol::encode_client_info("alice", "c2", R"({"x":2})")},
               {"c3", "bob", protocol::encode_client_info("bob", "c3")}};
  EXPECT_EQ(codec.encode_reply(2, protocol::PresenceReply{p, true}),
            R"({"id":2,"presence_stats":{"num_clients":3,"num_users":2}})");
  Doc d(codec.encode_reply(3, protocol::PresenceReply{p, false}));
  dom::object map = d.root["presence"]["presence"];
  EXPECT_EQ(map.size(), 3U);
  EXPECT_EQ(std::string_view(map["c2"]["user"]), "alice");
  EXPECT_EQ(std::string_view(map["c2"]["client"]), "c2");
  EXPECT_EQ(std::int64_t(map["c2"]["conn_info"]["x"]), 2);
}

TEST(CentrifugoEncode, ConnectReplyNamesTheClientAndItsServerSideSubscriptions) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  protocol::SubscribeResult took;
  took.epoch = "e";
  took.offset = 3;
  std::vector<protocol::ServerSubscription> subs{
      {"news", took, {}, {}, false},
      {"secret", std::nullopt, {}, {ErrorCode::permission_denied, "no"}, false}};
  Doc d(codec.encode_reply(1, protocol::ConnectReply{"cid", "alice", 1700000000, "", subs}));
  dom::object c = d.root["connect"];
  EXPECT_EQ(std::string_view(c["client"]), "cid");
  EXPECT_EQ(std::string_view(c["version"]), HERALD_VERSION);
  EXPECT_EQ(std::uint64_t(c["subs"]["news"]["offset"]), 3U);
  EXPECT_EQ(c["subs"]["secret"].error(), simdjson::NO_SUCH_FIELD);
  // An expiry the server refreshes (a hook), or none: no client-side
  // refresh is offered (the SDK would need a getToken).
  EXPECT_EQ(c["expires"].error(), simdjson::NO_SUCH_FIELD);
  // The keep-alive period, so the SDK knows when silence means a dead
  // connection, and that it must answer each ping.
  EXPECT_EQ(std::uint64_t(c["ping"]), 15U);
  EXPECT_TRUE(bool(c["pong"]));
  EXPECT_EQ(codec.ping_message(), "{}");
  // A period under a second is announced as one (never less than it is);
  // none at all is left out.
  CentrifugoJson fast(1024, std::chrono::milliseconds(400));
  Doc f(fast.encode_reply(1, protocol::ConnectReply{"cid", "alice", {}, "", {}}));
  EXPECT_EQ(std::uint64_t(f.root["connect"]["ping"]), 1U);
  CentrifugoJson none(1024, std::chrono::milliseconds(0));
  Doc n(none.encode_reply(1, protocol::ConnectReply{"cid", "alice", {}, "", {}}));
  EXPECT_EQ(n.root["connect"]["ping"].error(), simdjson::NO_SUCH_FIELD);
}

TEST(CentrifugoEncode, AnExpiryTheClientRefreshesIsAnnouncedWithItsTtl) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  const std::int64_t in_an_hour = unix_now() + 3600;
  std::vector<protocol::ServerSubscription> none;
  Doc d(codec.encode_reply(1, protocol::ConnectReply{"cid", "alice", in_an_hour, "", none, true}));
  EXPECT_TRUE(bool(d.root["connect"]["expires"]));
  const std::uint64_t ttl = d.root["connect"]["ttl"];
  EXPECT_GE(ttl, 3598U);
  EXPECT_LE(ttl, 3600U);
  Doc r(codec.encode_reply(2, protocol::RefreshReply{"cid", in_an_hour}));
  EXPECT_EQ(std::string_view(r.root["refresh"]["client"]), "cid");
  EXPECT_TRUE(bool(r.root["refresh"]["expires"]));
  EXPECT_GE(std::uint64_t(r.root["refresh"]["ttl"]), 3598U);
  // Past already (a slow reply): a ttl of 1, never 0 (the SDK would refresh
  // in a loop).
  Doc late(codec.encode_reply(3, protocol::RefreshReply{"cid", unix_now() - 5}));
  EXPECT_EQ(std::uint64_t(late.root["refresh"]["ttl"]), 1U);
  Doc forever(codec.encode_reply(4, protocol::RefreshReply{"cid", std::nullopt}));
  EXPECT_EQ(forever.root["refresh"]["expires"].error(), simdjson::NO_SUCH_FIELD);
}

TEST(CentrifugoEncode, ErrorsUseCentrifugoCodesAndTheTemporaryFlag) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  EXPECT_EQ(codec.encode_error(7, ErrorCode::permission_denied, "no"),
            R"({"id":7,"error":{"code":103,"message":"no"}})");
  EXPECT_EQ(codec.encode_error(8, ErrorCode::too_many_requests, "slow down"),
            R"({"id":8,"error":{"code":111,"message":"slow down","temporary":true}})");
  EXPECT_EQ(codec.encode_error(9, ErrorCode::moderation_rejected, "m"),
            R"({"id":9,"error":{"code":1113,"message":"m"}})");
  // Every Herald code maps to one below 3000, and "try again" ones are temporary.
  for (const protocol::ErrorInfo& info : protocol::error_table()) {
    const auto e = codec::centrifugo::error_for(info.code);
    EXPECT_GE(e.code, 100U);
    EXPECT_LT(e.code, 2000U);
    const bool retry =
        info.code == ErrorCode::internal || info.code == ErrorCode::too_many_requests ||
        info.code == ErrorCode::unavailable || info.code == ErrorCode::backend_unavailable;
    EXPECT_EQ(e.temporary, retry) << info.name;
  }
}

TEST(CentrifugoEncode, DisconnectsKeepTheReconnectRuleInCentrifugoCodes) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  EXPECT_EQ(codec.encode_disconnect(3001, "shutdown", true),
            R"({"push":{"disconnect":{"code":3001,"reason":"shutdown"}}})");
  EXPECT_EQ(codec.close_frame(3002, "slow consumer").code, 3008);
  EXPECT_EQ(codec.close_frame(3502, "forced").code, 3503);
  // Centrifugo's SDKs reconnect unless the code is in 3500-3999 or
  // 4500-4999; Herald's rule (protocol::should_reconnect) must survive the
  // mapping, and the reason must never be empty.
  for (const protocol::DisconnectInfo& info : protocol::disconnect_table()) {
    // Safety: DisconnectCode's underlying type is std::uint16_t.
    const auto herald = static_cast<std::uint16_t>(info.code);
    const auto close = codec.close_frame(herald, info.reason);
    const bool sdk_reconnects = close.code < 3500 || (close.code >= 4000 && close.code < 4500);
    EXPECT_EQ(sdk_reconnects, protocol::should_reconnect(info.code)) << info.reason;
    EXPECT_FALSE(close.reason.empty());
  }
  // A backend's own code passes with its reason, or a word for an empty one.
  EXPECT_EQ(codec.close_frame(4100, "moved").code, 4100);
  EXPECT_EQ(codec.close_frame(4100, "moved").reason, "moved");
  EXPECT_EQ(codec.close_frame(4501, "").reason, "disconnect");
}

TEST(CentrifugoEncode, PushesCarryTheChannelAndCentrifugoShapes) {
  CentrifugoJson codec(1024, std::chrono::seconds(15));
  Doc pub(codec.encode_push(pub_line(5, "hi")));
  dom::object push = pub.root["push"];
  EXPECT_EQ(std::string_view(push["channel"]), "chat");
  EXPECT_EQ(std::string_view(push["pub"]["data"]["text"]), "hi");
  EXPECT_EQ(std::uint64_t(push["pub"]["offset"]), 5U);
  EXPECT_EQ(std::string_view(push["pub"]["info"]["user"]), "alice");
  EXPECT_EQ(push["pub"]["epoch"].error(), simdjson::NO_SUCH_FIELD);
  // A publication outside the stream has no offset.
  Doc live(codec.encode_push(protocol::encode_live_pub_push("chat", R"("x")", "")));
  EXPECT_EQ(live.root["push"]["pub"]["offset"].error(), simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(std::string_view(live.root["push"]["pub"]["data"]), "x");
  EXPECT_EQ(live.root["push"]["pub"]["tags"].error(), simdjson::NO_SUCH_FIELD);
  // Tags (the server API's) pass as they are; moderation is Herald's alone.
  Doc tagged(codec.encode_push(protocol::encode_pub_push(
      "chat", 6, "ep", "1", "", R"({"masked":1,"flagged":0,"categories":[]})", R"({"k":"v"})")));
  EXPECT_EQ(std::string_view(tagged.root["push"]["pub"]["tags"]["k"]), "v");
  EXPECT_EQ(tagged.root["push"]["pub"]["moderation"].error(), simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(codec.encode_push(protocol::encode_presence_push(
                true, "chat", protocol::encode_client_info("bob", "c9"))),
            R"({"push":{"channel":"chat","join":{"info":{"user":"bob","client":"c9"}}}})");
  EXPECT_EQ(codec.encode_push(protocol::encode_presence_push(
                false, "chat", protocol::encode_client_info("bob", "c9"))),
            R"({"push":{"channel":"chat","leave":{"info":{"user":"bob","client":"c9"}}}})");
  // A server-side subscription made later: its position, as the SDK keeps it.
  EXPECT_EQ(codec.encode_push(protocol::encode_subscribe_push("chat", "ep", 4)),
            R"({"push":{"channel":"chat","subscribe":{"recoverable":true,"positioned":true,)"
            R"("epoch":"ep","offset":4}}})");
  // With the server API's data, which the SDK hands to its 'subscribed'.
  EXPECT_EQ(codec.encode_push(protocol::encode_subscribe_push("chat", "ep", 4, R"({"a":[1]})")),
            R"({"push":{"channel":"chat","subscribe":{"recoverable":true,"positioned":true,)"
            R"("epoch":"ep","offset":4,"data":{"a":[1]}}}})");
  // The server's refresh: the connection's, with no channel.
  EXPECT_EQ(codec.encode_push(protocol::encode_refresh_push(std::nullopt)),
            R"({"push":{"refresh":{}}})");
  Doc refresh(codec.encode_push(protocol::encode_refresh_push(unix_now() + 30)));
  EXPECT_TRUE(bool(refresh.root["push"]["refresh"]["expires"]));
  EXPECT_GE(std::int64_t(refresh.root["push"]["refresh"]["ttl"]), 29);
  // The server's unsubscribe, in Centrifugo's codes (the same numbers).
  EXPECT_EQ(codec.encode_push(
                protocol::encode_unsubscribe_push("chat", protocol::UnsubscribeCode::stream_lost)),
            R"({"push":{"channel":"chat","unsubscribe":{"code":2500,"reason":"stream lost"}}})");
  // The room list is Herald's own: nothing is sent.
  EXPECT_EQ(codec.encode_push(R"({"rooms":{"ops":[]}})"), "");
  // Data with a newline inside a string stays on one line.
  const std::string out = codec.encode_push(pub_line(6, "a\\nb"));
  EXPECT_EQ(out.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace herald::gateway
