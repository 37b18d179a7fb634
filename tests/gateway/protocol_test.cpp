#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "gateway/codec/herald_json_parser.hpp"
#include "gateway/codec/lines.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/publication_summary.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/protocol/room_list_push.hpp"

namespace herald::gateway::protocol {
namespace {

using codec::CommandParser;
using codec::for_each_line;
using codec::ParseResult;
using ::testing::HasSubstr;

// By value: the ParseResult passed in is usually a temporary.
Command ok(const ParseResult& r) {
  if (auto* e = std::get_if<CommandError>(&r)) ADD_FAILURE() << e->message;
  return std::get<Command>(r);
}

CommandError err(const ParseResult& r) {
  if (std::holds_alternative<Command>(r)) ADD_FAILURE() << "expected an error";
  return std::get<CommandError>(r);
}

TEST(CommandParser, ParsesRefresh) {
  CommandParser p(4096);
  auto c = ok(p.parse(R"({"id":9,"refresh":{"token":"fresh"}})"));
  EXPECT_EQ(c.id, 9U);
  EXPECT_EQ(std::get<protocol::RefreshCmd>(c.body).token, "fresh");
  EXPECT_EQ(err(p.parse(R"({"id":9,"refresh":{}})")).message, "refresh.token: expected a string");
}

TEST(CommandParser, ParsesEveryCommand) {
  CommandParser p(4096);
  auto c = ok(p.parse(R"({"id":1,"connect":{"token":"abc"}})"));
  EXPECT_EQ(c.id, 1u);
  EXPECT_EQ(std::get<ConnectCmd>(c.body).token, "abc");

  auto s =
      ok(p.parse(R"({"id":2,"subscribe":{"room":"chat:a","since":{"epoch":"e1","offset":7}}})"));
  const auto& sub = std::get<SubscribeCmd>(s.body);
  EXPECT_EQ(sub.room, "chat:a");
  ASSERT_TRUE(sub.since);
  EXPECT_EQ(*sub.since, (StreamPosition{"e1", 7}));

  auto pub = ok(p.parse(R"({"publish":{"room":"r","data":{ "text" : "hi", "n":[1, 2] }},"id":3})"));
  EXPECT_EQ(pub.id, 3u);
  EXPECT_EQ(std::get<PublishCmd>(pub.body).data, R"({"text":"hi","n":[1,2]})");

  auto h = ok(p.parse(R"({"id":4,"history":{"room":"r","limit":5,"reverse":true}})"));
  EXPECT_EQ(std::get<HistoryCmd>(h.body).limit, 5u);
  EXPECT_TRUE(std::get<HistoryCmd>(h.body).reverse);

  EXPECT_TRUE(std::holds_alternative<UnsubscribeCmd>(
      ok(p.parse(R"({"id":5,"unsubscribe":{"room":"r"}})")).body));
  EXPECT_TRUE(
      std::holds_alternative<PresenceCmd>(ok(p.parse(R"({"id":6,"presence":{"room":"r"}})")).body));
  EXPECT_TRUE(std::holds_alternative<PresenceStatsCmd>(
      ok(p.parse(R"({"id":7,"presence_stats":{"room":"r"}})")).body));
  EXPECT_TRUE(std::holds_alternative<PingCmd>(ok(p.parse(R"({"id":8,"ping":{}})")).body));

  // data for the backend hooks: any JSON, passed on compactly; empty when absent.
  EXPECT_EQ(
      std::get<ConnectCmd>(ok(p.parse(R"({"id":9,"connect":{"data":{ "a" : [1] }}})")).body).data,
      R"({"a":[1]})");
  EXPECT_EQ(
      std::get<SubscribeCmd>(ok(p.parse(R"({"id":10,"subscribe":{"room":"r","data":"x"}})")).body)
          .data,
      R"("x")");
  EXPECT_EQ(std::get<SubscribeCmd>(s.body).data, "");

  // Positions to recover server-side subscriptions from.
  auto cs = ok(
      p.parse(R"({"id":11,"connect":{"subs":{"a":{"since":{"epoch":"e","offset":3}},"b":{}}}})"));
  EXPECT_EQ(std::get<ConnectCmd>(cs.body).subs, (RoomPositions{{"a", StreamPosition{"e", 3}}}));
}

struct BadCase {
  const char* name;
  const char* line;
  std::uint32_t id;  // 0: fatal (no usable id)
  ErrorCode code;
  const char* message;
};

TEST(CommandParser, RefusalsSayWhatAndKeepTheId) {
  const BadCase cases[] = {
      {"not_json", R"({"id":1,)", 0, ErrorCode::bad_request, "malformed JSON"},
      {"not_object", R"([1,2])", 0, ErrorCode::bad_request, "must be a JSON object"},
      {"no_id", R"({"ping":{}})", 0, ErrorCode::bad_request, "needs \"id\""},
      {"zero_id", R"({"id":0,"ping":{}})", 0, ErrorCode::bad_request, "needs \"id\""},
      {"string_id", R"({"id":"1","ping":{}})", 0, ErrorCode::bad_request, "needs \"id\""},
      {"huge_id", R"({"id":4294967296,"ping":{}})", 0, ErrorCode::bad_request, "needs \"id\""},
      {"no_method", R"({"id":9})", 9, ErrorCode::bad_request, "one key naming it"},
      {"two_methods", R"({"id":9,"ping":{},"presence":{}})", 9, ErrorCode::bad_request,
       "exactly one key"},
      {"params_not_object", R"({"id":9,"ping":1})", 9, ErrorCode::bad_request,
       "ping: expected an object"},
      {"unknown", R"({"id":9,"frobnicate":{}})", 9, ErrorCode::unknown_command,
       "unknown command 'frobnicate'"},
      {"room_missing", R"({"id":9,"subscribe":{}})", 9, ErrorCode::bad_request,
       "subscribe.room: expected a string"},
      {"room_number", R"({"id":9,"subscribe":{"room":5}})", 9, ErrorCode::bad_request,
       "subscribe.room: expected a string"},
      {"since_bad", R"({"id":9,"subscribe":{"room":"r","since":{"epoch":"e"}}})", 9,
       ErrorCode::bad_request, "subscribe.since.offset"},
      {"since_negative", R"({"id":9,"subscribe":{"room":"r","since":{"epoch":"e","offset":-1}}})",
       9, ErrorCode::bad_request, "subscribe.since.offset"},
      {"data_missing", R"({"id":9,"publish":{"room":"r"}})", 9, ErrorCode::bad_request,
       "publish.data"},
      {"limit_string", R"({"id":9,"history":{"room":"r","limit":"5"}})", 9, ErrorCode::bad_request,
       "history.limit"},
      {"reverse_number", R"({"id":9,"history":{"room":"r","reverse":1}})", 9,
       ErrorCode::bad_request, "history.reverse: expected true or false"},
      {"subs_array", R"({"id":9,"connect":{"subs":[]}})", 9, ErrorCode::bad_request,
       "connect.subs: expected an object"},
      {"subs_entry", R"({"id":9,"connect":{"subs":{"r":1}}})", 9, ErrorCode::bad_request,
       "connect.subs.r: expected an object {since}"},
      {"subs_since", R"({"id":9,"connect":{"subs":{"r":{"since":{"offset":1}}}}})", 9,
       ErrorCode::bad_request, "connect.subs.r.since.epoch: expected a string"},
      {"notify_mode", R"({"id":9,"rooms.notify":{"room":"r","mode":"loud"}})", 9,
       ErrorCode::bad_request, R"(rooms.notify.mode: expected "all", "mentions" or "mute")"},
      {"notify_no_mode", R"({"id":9,"rooms.notify":{"room":"r"}})", 9, ErrorCode::bad_request,
       "rooms.notify.mode: expected a string"},
      {"mark_unread_number", R"({"id":9,"rooms.mark_unread":{"room":"r","unread":1}})", 9,
       ErrorCode::bad_request, "rooms.mark_unread.unread: expected true or false"},
      {"join_no_room", R"({"id":9,"rooms.join":{}})", 9, ErrorCode::bad_request,
       "rooms.join.room: expected a string"},
  };
  std::set<std::string> names;
  CommandParser p(4096);
  for (const auto& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    const auto e = err(p.parse(c.line));
    EXPECT_EQ(e.id, c.id) << c.name;
    EXPECT_EQ(e.code, c.code) << c.name;
    EXPECT_THAT(e.message, HasSubstr(c.message)) << c.name;
  }
}

// rooms.watch's filter tree and sort list (codec/room_query_json.hpp).
TEST(CommandParser, ReadsARoomFilterTreeAndASortList) {
  using Kind = live::RoomFilterExpr::Kind;
  CommandParser p(4096);
  auto c = ok(p.parse(
      R"({"id":1,"rooms.watch":{"sort":["local","name"],"filter":{"unread":true,"mentions":false,)"
      R"("any":[{"category":"direct"},{"fuzzy_name":"hrld","invites":true}],"not":{"low_priority":true}}}})"));
  const auto& w = std::get<RoomsWatchCmd>(c.body);
  ASSERT_EQ(w.sort.size(), 2U);
  EXPECT_EQ(w.sort.key(0), live::RoomSortKey::unsent_first);
  EXPECT_EQ(w.sort.key(1), live::RoomSortKey::name);
  const live::RoomFilterExpr& f = w.filter;
  EXPECT_EQ(f.kind, Kind::all);
  ASSERT_EQ(f.parts.size(), 3U);  // "mentions": false adds nothing
  EXPECT_EQ(f.parts[0].kind, Kind::unread);
  ASSERT_EQ(f.parts[1].kind, Kind::any);
  ASSERT_EQ(f.parts[1].parts.size(), 2U);
  EXPECT_EQ(f.parts[1].parts[0].parts[0].kind, Kind::direct);
  const auto& second = f.parts[1].parts[1].parts;
  ASSERT_EQ(second.size(), 2U);
  EXPECT_EQ(second[0].kind, Kind::fuzzy_name);
  EXPECT_EQ(second[0].text, "hrld");
  EXPECT_EQ(second[1].kind, Kind::invite);
  ASSERT_EQ(f.parts[2].kind, Kind::not_);
  EXPECT_EQ(f.parts[2].parts.at(0).parts.at(0).kind, Kind::low_priority);

  // The defaults: activity (unsent first, recency, name), every room.
  const Command dc = ok(p.parse(R"({"id":2,"rooms.watch":{}})"));
  const auto& d = std::get<RoomsWatchCmd>(dc.body);
  EXPECT_EQ(d.sort.size(), 3U);
  EXPECT_EQ(d.sort.key(1), live::RoomSortKey::recency);
  EXPECT_TRUE(d.filter.parts.empty());
  const Command nc = ok(p.parse(R"({"id":3,"rooms.watch":{"sort":"name"}})"));
  const auto& n = std::get<RoomsWatchCmd>(nc.body);
  ASSERT_EQ(n.sort.size(), 1U);
  EXPECT_EQ(n.sort.key(0), live::RoomSortKey::name);

  // Refusals name the place.
  const std::pair<std::string, std::string> bad[] = {
      {R"({"category":"dm"})", R"(rooms.watch.filter.category: expected "direct" or "group")"},
      {R"({"any":[{"unread":true},{"category":1}]})",
       R"(rooms.watch.filter.any[1].category: expected "direct" or "group")"},
      {R"({"not":{"colour":"red"}})", "rooms.watch.filter.not.colour: expected a condition"},
      {R"({"all":{"unread":true}})", "rooms.watch.filter.all: expected a list of filter objects"},
      {R"({"unread":"yes"})", "rooms.watch.filter.unread: expected true or false"},
      {R"([1])", "rooms.watch.filter: expected a filter object"},
      {R"({"not":{"not":{"not":{"not":{"not":{"not":{"not":{"not":{}}}}}}}}})",
       "nested at most 8 deep"},
  };
  for (const auto& [filter, message] : bad) {
    const auto e = err(p.parse(R"({"id":4,"rooms.watch":{"filter":)" + filter + "}}"));
    EXPECT_EQ(e.id, 4U);
    EXPECT_THAT(e.message, HasSubstr(message)) << filter;
  }
  std::string many = R"({"any":[)";
  for (int i = 0; i < 64; ++i) many += std::string(i ? "," : "") + R"({"unread":true})";
  many += "]}";
  EXPECT_THAT(err(p.parse(R"({"id":5,"rooms.watch":{"filter":)" + many + "}}")).message,
              HasSubstr("at most 64 conditions"));
  for (const char* sort : {R"("size")", R"([])", R"(["recency","size"])", R"(7)"}) {
    EXPECT_THAT(
        err(p.parse(std::string(R"({"id":6,"rooms.watch":{"sort":)") + sort + "}}")).message,
        HasSubstr(R"(rooms.watch.sort: expected "activity", "name" or a list)"))
        << sort;
  }
  EXPECT_THAT(err(p.parse(R"({"id":7,"rooms.watch":{"sort":["name","name","name","name","name",)"
                          R"("name","name","name","name"]}})"))
                  .message,
              HasSubstr("rooms.watch.sort: expected at most 8 keys"));
}

TEST(CommandParser, LineLimitIsEnforcedBeforeParsing) {
  CommandParser p(32);
  const auto e = err(p.parse(R"({"id":1,"publish":{"room":"r","data":"0123456789"}})"));
  EXPECT_THAT(e.message, HasSubstr("over the limit of 32"));
}

TEST(CommandParser, SplitsFramesIntoLines) {
  std::vector<std::string> lines;
  for_each_line("a\nb\r\n\n c\n", [&](std::string_view l) { lines.emplace_back(l); });
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", " c"}));
}

TEST(Encode, RepliesAndPushes) {
  EXPECT_EQ(encode_result(3, "{}"), R"({"id":3,"result":{}})");
  EXPECT_EQ(encode_error(4, ErrorCode::bad_room, "bad \"x\""),
            R"({"id":4,"error":{"code":102,"message":"bad \"x\""}})");
  std::string push = encode_pub_push("chat:a", 7, "e1", R"({"t":1})", R"({"user":"u"})");
  EXPECT_EQ(
      push,
      R"({"pub":{"room":"chat:a","offset":7,"epoch":"e1","data":{"t":1},"info":{"user":"u"}}})");
  EXPECT_EQ(publication_in_push(push),
            R"({"room":"chat:a","offset":7,"epoch":"e1","data":{"t":1},"info":{"user":"u"}})");
  EXPECT_EQ(encode_pub_push("r", 1, "e", "1", ""),
            R"({"pub":{"room":"r","offset":1,"epoch":"e","data":1}})");
  // Outside the stream: the same push without the position.
  std::string live = encode_live_pub_push("chat:a", R"({"t":1})", R"({"user":"u"})", R"({"m":1})");
  EXPECT_EQ(live,
            R"({"pub":{"room":"chat:a","data":{"t":1},"info":{"user":"u"},"moderation":{"m":1}}})");
  std::string stream =
      encode_pub_push("chat:a", 7, "e1", R"({"t":1})", R"({"user":"u"})", R"({"m":1})");
  const std::string_view position = R"("offset":7,"epoch":"e1",)";
  EXPECT_EQ(stream.replace(stream.find(position), position.size(), ""), live);
  protocol::PublishResult published;
  published.offset = 3;
  published.epoch = "e";
  EXPECT_EQ(publish_result(published), R"({"offset":3,"epoch":"e"})");
  published.in_stream = false;
  EXPECT_EQ(publish_result(published), "{}");
  EXPECT_EQ(encode_disconnect(DisconnectCode::slow_consumer),
            R"({"disconnect":{"code":3002,"reason":"slow consumer","reconnect":true}})");
  EXPECT_EQ(encode_disconnect(DisconnectCode::forced),
            R"({"disconnect":{"code":3502,"reason":"forced","reconnect":false}})");
  EXPECT_EQ(encode_presence_push(true, "r", R"({"client":"c","user":"u"})"),
            R"({"join":{"room":"r","info":{"client":"c","user":"u"}}})");
  // A connection's info, with what the connect and subscribe hooks added.
  const std::string info = encode_client_info("u", "c", R"({"n":1})");
  EXPECT_EQ(info, R"({"client":"c","user":"u","info":{"n":1}})");
  EXPECT_EQ(with_chan_info(info, R"({"role":"x"})"),
            R"({"client":"c","user":"u","info":{"n":1},"chan_info":{"role":"x"}})");
  EXPECT_EQ(encode_error_object(ErrorCode::limit_exceeded, "full"),
            R"({"error":{"code":106,"message":"full"}})");
}

TEST(Codes, ReconnectRuleHoldsForEveryCode) {
  for (const auto& d : disconnect_table()) {
    EXPECT_EQ(should_reconnect(d.code), static_cast<int>(d.code) < 3500) << d.reason;
    EXPECT_FALSE(d.meaning.empty());
  }
  std::set<int> seen;
  for (const auto& e : error_table()) EXPECT_TRUE(seen.insert(static_cast<int>(e.code)).second);
}

}  // namespace
}  // namespace herald::gateway::protocol

namespace herald::gateway::protocol {
namespace {

// The room list reads a publication's line as values (publication_summary.hpp).
TEST(PublicationSummary, ReadsEachKindOfData) {
  auto summary = [](std::string_view data,
                    std::string_view info = R"({"client":"c","user":"ann"})") {
    return summarize_publication(
        fanout::make_message(encode_pub_push("chat:lobby", 3, "e", data, info)));
  };
  PublicationSummary s = summary(R"({"text":"hi @bob"})");
  EXPECT_TRUE(s.valid);
  EXPECT_EQ(s.kind, PublicationSummary::Kind::text);
  EXPECT_EQ(s.room, "chat:lobby");
  EXPECT_EQ(s.sender, "ann");
  EXPECT_EQ(s.text, "hi @bob");
  EXPECT_EQ(s.preview, "hi @bob");
  s = summary(R"("hi")");
  EXPECT_EQ(s.kind, PublicationSummary::Kind::other);
  EXPECT_EQ(s.preview, "hi");
  s = summary(R"({"rename":"Lobby"})", "");
  EXPECT_EQ(s.kind, PublicationSummary::Kind::rename);
  EXPECT_EQ(s.rename, "Lobby");
  EXPECT_EQ(s.preview, "renamed the room to Lobby");
  EXPECT_EQ(s.sender, "");  // the server API's publications carry none
  s = summary(R"({"n":1})");
  EXPECT_EQ(s.kind, PublicationSummary::Kind::other);
  EXPECT_EQ(s.preview, R"({"n":1})");
  // Cut at 120 bytes without splitting a code point: 119 ASCII bytes, then
  // a two-byte character that would straddle the cut.
  s = summary("\"" + std::string(119, 'a') + "\xC3\xA9" + "zz\"");
  EXPECT_EQ(s.preview, std::string(119, 'a') + "…");
}

TEST(RoomListPush, WritesEachDiffAsTheProtocolPageShows) {
  live::DiffBatch<live::RoomListItem> batch;
  live::RoomListItem item;
  item.unread_count = 2;
  item.latest_event_ms = 5;
  item.tags = live::kTagFavourite;
  batch.push_back(live::VectorDiff<live::RoomListItem>::reset({item}));
  batch.push_back(live::VectorDiff<live::RoomListItem>::set(0, item));
  batch.push_back(live::VectorDiff<live::RoomListItem>::remove(1));
  batch.push_back(live::VectorDiff<live::RoomListItem>::truncate(4));
  batch.push_back(live::VectorDiff<live::RoomListItem>::pop_back());
  const auto row_of = [](const live::RoomListItem& i) {
    return RoomRow{.room = "r",
                   .name = "R",
                   .preview = "p",
                   .sender = "s",
                   .time_ms = i.latest_event_ms,
                   .unread = i.unread_count,
                   .mentions = 0,
                   .notifications = 1,
                   .favourite = (i.tags & live::kTagFavourite) != 0,
                   .low_priority = false,
                   .marked_unread = true,
                   .notify = live::NotifyMode::mentions_only,
                   .direct = true,
                   .invited = true};
  };
  const std::string row =
      R"({"room":"r","name":"R","preview":"p","sender":"s","time":5,"unread":2,"mentions":0,"notifications":1,"favourite":true,"low_priority":false,"marked_unread":true,"notify":"mentions","direct":true,"membership":"invited"})";
  EXPECT_EQ(encode_rooms_push(batch, row_of),
            R"({"rooms":{"diffs":[{"op":"reset","values":[)" + row +
                R"(]},{"op":"set","index":0,"value":)" + row +
                R"(},{"op":"remove","index":1},{"op":"truncate","length":4},{"op":"pop_back"}]}})");
  EXPECT_EQ(encode_rooms_push(live::DiffBatch<live::RoomListItem>{}, row_of), "");
}

TEST(RoomListPush, NamesEachNotificationModeAndReadsItBack) {
  for (const live::NotifyMode m :
       {live::NotifyMode::all, live::NotifyMode::mentions_only, live::NotifyMode::mute}) {
    EXPECT_EQ(notify_mode_named(notify_mode_name(m)), m);
  }
  EXPECT_EQ(notify_mode_name(live::NotifyMode::mentions_only), "mentions");
  EXPECT_EQ(notify_mode_named("Mute"), std::nullopt);
  EXPECT_EQ(notify_mode_named(""), std::nullopt);
}

}  // namespace
}  // namespace herald::gateway::protocol
