// The HTTP server API against heraldd as a real process.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "history_checks.hpp"
#include "idempotency_checks.hpp"
#include "presence_override_checks.hpp"
#include "support/eventually.hpp"
#include "support/http_client.hpp"
#include "support/sse_stream.hpp"
#include "tags_checks.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

HttpReply post(std::uint16_t port, const std::string& path, const std::string& body,
               const std::string& key = "k3y") {
  return api_post(port, path, body, key);
}

TEST(GatewayApi, PublishBroadcastHistoryPresenceDisconnect) {
  Daemon d({"--api.key", "k3y"});
  auto sub = connect_as(d.port, "alice");
  subscribe(*sub, 2, "news");
  subscribe(*sub, 3, "alerts");

  HttpReply r = post(d.port, "/api/publish", R"({"room":"news","data":{"title":"hello"}})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 1u);
  auto m = sub->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"({"title":"hello"})");
  EXPECT_FALSE(json_has(*m, "/pub/info"));  // the API publishes as no client

  r = post(d.port, "/api/broadcast", R"({"rooms":["news","alerts"],"data":2})");
  EXPECT_EQ(json_size(r.body, "/result/responses"), 2u) << r.body;
  EXPECT_EQ(json_str(r.body, "/result/responses/1/room"), "alerts");
  EXPECT_TRUE(sub->next() && sub->next());

  r = post(d.port, "/api/history", R"({"room":"news","limit":10})");
  EXPECT_EQ(json_size(r.body, "/result/publications"), 2u) << r.body;

  r = post(d.port, "/api/presence", R"({"room":"news"})");
  EXPECT_EQ(json_str(r.body, "/result/clients/0/user"), "alice") << r.body;
  r = post(d.port, "/api/presence_stats", R"({"room":"news"})");
  EXPECT_EQ(json_uint(r.body, "/result/users"), 1u);

  r = post(d.port, "/api/disconnect", R"({"user":"alice"})");
  EXPECT_EQ(json_uint(r.body, "/result/disconnected"), 1u) << r.body;
  EXPECT_EQ(sub->wait_closed().value_or(CloseInfo{}).code, 3502);
}

// Room memberships (issue 43), kept in state.dir: added, listed and
// removed through the API, bounded, and there after heraldd is killed
// (SIGKILL) right after answering, and restarted.
TEST(GatewayApi, MembershipsAreKeptAcrossAKillAndARestart) {
  const std::string dir = ::testing::TempDir() + "herald-members-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  const std::vector<std::string> flags{
      "--api.key", "k3y", "--state.dir", dir, "--state.max_rooms_per_user", "2"};
  {
    Daemon d(flags);
    auto member = [&](const std::string& method, const std::string& body) {
      return post(d.port, "/api/" + method, body);
    };
    HttpReply r = member("members_add", R"({"room":"team:ops","user":"ann"})");
    EXPECT_EQ(r.body, "{\"result\":{\"changed\":true}}\n") << r.body;
    r = member("members_add", R"({"room":"team:ops","user":"ann"})");
    EXPECT_EQ(json_raw(r.body, "/result/changed"), "false") << r.body;
    EXPECT_EQ(member("members_add", R"({"room":"team:dev","user":"ann","invited":true})").status,
              200);
    r = member("members_add", R"({"room":"team:qa","user":"ann"})");
    EXPECT_EQ(r.status, 429) << r.body;
    EXPECT_THAT(r.body, HasSubstr("state.max_rooms_per_user (2) reached: user 'ann'"));
    EXPECT_EQ(member("members_add", R"({"room":"team:ops","user":"bob"})").status, 200);
    r = member("members", R"({"room":"team:ops"})");
    EXPECT_EQ(json_raw(r.body, "/result/users"), R"(["ann","bob"])") << r.body;
    r = member("members_remove", R"({"room":"team:ops","user":"bob"})");
    EXPECT_EQ(json_raw(r.body, "/result/changed"), "true") << r.body;
    r = member("members_remove", R"({"room":"team:ops","user":"bob"})");
    EXPECT_EQ(json_raw(r.body, "/result/changed"), "false") << r.body;
    // Refused by name, nothing changed.
    for (const std::string body : {R"({"room":"team:ops"})", R"({"room":"bad room","user":"ann"})",
                                   R"({"room":"team:ops","user":"ann","invited":1})",
                                   R"({"room":"team:ops","user":"ann","direct":"yes"})", "[]"}) {
      r = member("members_add", body);
      EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
    }
    // Told "changed", then killed before anything else: SIGKILL skips every
    // shutdown step.
    EXPECT_EQ(member("members_add", R"({"room":"team:ops","user":"cat"})").status, 200);
    d.proc->signal(SIGKILL);
    EXPECT_TRUE(d.proc->wait_exit(std::chrono::seconds(10)));
  }
  Daemon again(flags);
  HttpReply r = post(again.port, "/api/members", R"({"room":"team:ops"})");
  EXPECT_EQ(json_raw(r.body, "/result/users"), R"(["ann","cat"])") << r.body;
  r = post(again.port, "/api/user_rooms", R"({"user":"ann"})");
  ASSERT_EQ(json_size(r.body, "/result/rooms"), 2u) << r.body;
  EXPECT_EQ(json_str(r.body, "/result/rooms/0/room"), "team:dev");
  EXPECT_EQ(json_str(r.body, "/result/rooms/0/state"), "invited");
  EXPECT_EQ(json_str(r.body, "/result/rooms/1/state"), "joined");
  EXPECT_EQ(json_raw(r.body, "/result/rooms/1/read"), R"({"epoch":"","offset":0})");
  EXPECT_EQ(json_str(r.body, "/result/rooms/1/notify"), "all");
  std::filesystem::remove_all(dir);
}

TEST(GatewayApi, MembershipsNeedStateDir) {
  Daemon d({"--api.key", "k3y"});
  HttpReply r = post(d.port, "/api/members_add", R"({"room":"team:ops","user":"ann"})");
  EXPECT_EQ(r.status, 501) << r.body;
  EXPECT_THAT(r.body, HasSubstr("state.dir"));
  EXPECT_EQ(post(d.port, "/api/members", R"({"room":"team:ops"})", "wrong").status, 401);
}

TEST(GatewayApi, AnIdempotencyKeyPublishesOncePerRoom) {
  Daemon d({"--api.key", "k3y"});
  expect_idempotent_publishes(d.port, d.port, d.port, "news:once");
}

TEST(GatewayApi, TagsTravelWithThePublication) {
  Daemon d({"--api.key", "k3y"});
  expect_tags_travel_with_the_publication(d.port, d.port, "news:tags");
}

TEST(GatewayApi, AnOverrideShapesOneSubscriptionsPresence) {
  Daemon d({"--api.key", "k3y", "--rooms.join_leave", "true"});
  expect_overrides_shape_presence(d.port, d.port, "news:override");
}

TEST(GatewayApi, HistorySinceReadsTheCurrentEpochOrRefusesAnother) {
  Daemon d({"--api.key", "k3y"});
  expect_history_since_reads_the_current_epoch(d.port, "news:since");
}

TEST(GatewayApi, HistoryRemoveDropsThePublicationsAndKeepsTheStream) {
  Daemon d({"--api.key", "k3y"});
  expect_history_remove_keeps_the_stream(d.port, d.port, "news:removed");
}

// Centrifugo's info: this node's census, now. Connected clients of every
// transport (an SSE stream too), distinct users, rooms with subscriptions,
// subscriptions; going down as clients leave.
TEST(GatewayApi, InfoReportsThisNodesCensus) {
  Daemon d({"--api.key", "k3y"});
  auto a1 = connect_as(d.port, "alice");
  auto a2 = connect_as(d.port, "alice");
  auto b = connect_as(d.port, "bob");
  subscribe(*a1, 2, "news");
  subscribe(*a2, 2, "news");
  subscribe(*b, 2, "chat:x");
  SseStream carol(d.port, "/sse?room=news&room=chat:y&user=carol");
  ASSERT_TRUE(carol.next_named("connected"));
  auto node = [&d](const std::string& field) {
    HttpReply r = post(d.port, "/api/info", "{}");
    EXPECT_EQ(json_size(r.body, "/result/nodes"), 1u) << r.body;
    return json_uint(r.body, "/result/nodes/0/" + field).value_or(999);
  };
  // The SSE stream's rooms are subscribed as its opening goes out.
  EXPECT_TRUE(eventually([&] { return node("num_subs") == 5; })) << node("num_subs");
  EXPECT_EQ(node("num_clients"), 4u);
  EXPECT_EQ(node("num_users"), 3u);
  EXPECT_EQ(node("num_channels"), 3u);  // news, chat:x, chat:y
  HttpReply r = post(d.port, "/api/info", "{}");
  EXPECT_EQ(json_str(r.body, "/result/nodes/0/version"), HERALD_VERSION) << r.body;
  EXPECT_TRUE(json_str(r.body, "/result/nodes/0/uid").value_or("").starts_with("node-")) << r.body;
  EXPECT_EQ(json_str(r.body, "/result/nodes/0/name"), json_str(r.body, "/result/nodes/0/uid"));
  EXPECT_LT(json_uint(r.body, "/result/nodes/0/uptime").value_or(999), 60u) << r.body;

  b.reset();
  a1.reset();
  EXPECT_TRUE(eventually([&] { return node("num_clients") == 2; })) << node("num_clients");
  EXPECT_EQ(node("num_users"), 2u);     // alice (a2) and carol
  EXPECT_EQ(node("num_channels"), 2u);  // chat:x went with bob
  EXPECT_EQ(node("num_subs"), 3u);
}

// Centrifugo's channels on one node: its rooms with subscribers, matching
// the glob when one is given.
TEST(GatewayApi, ChannelsListsTheRoomsWithSubscribers) {
  Daemon d({"--api.key", "k3y"});
  auto a = connect_as(d.port, "alice");
  auto b = connect_as(d.port, "bob");
  subscribe(*a, 2, "chat:1");
  subscribe(*b, 2, "chat:1");
  subscribe(*b, 3, "news");
  HttpReply r = post(d.port, "/api/channels", "{}");
  EXPECT_EQ(json_raw(r.body, "/result"),
            R"({"channels":{"chat:1":{"num_clients":2},"news":{"num_clients":1}}})")
      << r.body;
  r = post(d.port, "/api/channels", R"({"pattern":"chat:*"})");
  EXPECT_EQ(json_raw(r.body, "/result"), R"({"channels":{"chat:1":{"num_clients":2}}})") << r.body;
  r = post(d.port, "/api/channels", R"({"pattern":"none*"})");
  EXPECT_EQ(json_raw(r.body, "/result"), R"({"channels":{}})") << r.body;
  r = post(d.port, "/api/channels", R"({"pattern":5})");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("pattern: expected a string")) << r.body;
  b.reset();
  EXPECT_TRUE(eventually([&] {
    return json_raw(post(d.port, "/api/channels", "{}").body, "/result") ==
           R"({"channels":{"chat:1":{"num_clients":1}}})";
  }));
}

// Centrifugo's b64data: standard base64 of the publication's JSON, taken
// when data is absent; anything that does not decode to JSON is refused.
TEST(GatewayApi, B64DataPublishesTheJsonItEncodes) {
  Daemon d({"--api.key", "k3y"});
  // {"text":"hi?"} in standard base64, with the '/' base64url lacks.
  HttpReply r =
      post(d.port, "/api/publish", R"({"channel":"b64","b64data":"eyJ0ZXh0IjoiaGk/In0="})");
  EXPECT_EQ(r.status, 200) << r.body;
  r = post(d.port, "/api/history", R"({"room":"b64","limit":10})");
  EXPECT_EQ(json_raw(r.body, "/result/publications/0/data"), R"({"text":"hi?"})") << r.body;
  for (const char* bad : {R"({"channel":"b64","b64data":"%%%"})",
                          R"({"channel":"b64","b64data":"bm90IGpzb24="})",  // "not json"
                          R"({"channel":"b64","b64data":7})"}) {
    r = post(d.port, "/api/publish", bad);
    EXPECT_EQ(json_uint(r.body, "/error/code"), 107u) << bad << " -> " << r.body;
  }
  r = post(d.port, "/api/publish", R"({"channel":"b64","b64data":"bm90IGpzb24="})");
  EXPECT_THAT(r.body, HasSubstr("b64data: expected standard base64 of a JSON value")) << r.body;
}

// skip_history through the server API: delivered live with no offset, the
// stream's offsets and history untouched, and a room nobody is in is not
// opened by it.
TEST(GatewayApi, SkipHistoryPublishesOutsideTheStream) {
  Daemon d({"--api.key", "k3y"});
  auto sub = connect_as(d.port, "alice");
  subscribe(*sub, 2, "news");
  HttpReply r = post(d.port, "/api/publish", R"({"room":"news","data":1,"skip_history":true})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_raw(r.body, "/result"), "{}") << r.body;
  auto m = sub->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, R"({"pub":{"room":"news","data":1}})");

  r = post(d.port, "/api/broadcast", R"({"rooms":["news","nobody"],"data":2,"skip_history":true})");
  EXPECT_EQ(json_raw(r.body, "/result/responses"), R"([{"room":"news"},{"room":"nobody"}])")
      << r.body;
  m = sub->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, R"({"pub":{"room":"news","data":2}})");
  EXPECT_EQ(metric_value(http_get("127.0.0.1", d.port, "/metrics").body, "herald_rooms"), 1.0);

  r = post(d.port, "/api/publish", R"({"room":"news","data":3,"skip_history":false})");
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 1u) << r.body;
  r = post(d.port, "/api/history", R"({"room":"news"})");
  EXPECT_EQ(json_size(r.body, "/result/publications"), 1u) << r.body;
  r = post(d.port, "/api/publish", R"({"room":"news","data":4,"skip_history":1})");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("skip_history: expected true or false"));
}

TEST(GatewayApi, RefusesBadKeysAndBadBodies) {
  Daemon d({"--api.key", "k3y"});
  HttpReply r = post(d.port, "/api/publish", R"({"room":"x","data":1})", "wrong");
  EXPECT_EQ(r.status, 401) << r.body;
  r = post(d.port, "/api/publish", R"({"room":"x","data":1})", "");
  EXPECT_EQ(r.status, 401) << r.body;
  // Centrifugo's two headers: X-API-Key (what cent.js sends; it wins when
  // present), and the apikey scheme in any case.
  auto with = [&](std::map<std::string, std::string> headers) {
    headers["Content-Type"] = "application/json";
    return http_request("127.0.0.1", d.port,
                        {"POST", "/api/publish", headers, R"({"room":"x","data":1})"})
        .status;
  };
  EXPECT_EQ(with({{"X-API-Key", "k3y"}}), 200);
  EXPECT_EQ(with({{"X-API-Key", "wrong"}}), 401);
  EXPECT_EQ(with({{"X-API-Key", "wrong"}, {"Authorization", "apikey k3y"}}), 401);
  EXPECT_EQ(with({{"Authorization", "ApiKey k3y"}}), 200);
  EXPECT_EQ(with({{"Authorization", "apikey k3y2"}}), 401);
  EXPECT_EQ(with({{"Authorization", "apikey "}}), 401);
  r = post(d.port, "/api/publish", R"({"room":"x","data":)");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("body is not valid JSON"));
  r = post(d.port, "/api/publish", R"({"room":"bad room","data":1})");
  EXPECT_THAT(r.body, HasSubstr("room: room name has a character"));
  r = post(d.port, "/api/publish", R"({"room":"x"})");
  EXPECT_THAT(r.body, HasSubstr("data: expected a JSON value"));
  r = post(d.port, "/api/broadcast", R"({"rooms":"x","data":1})");
  EXPECT_THAT(r.body, HasSubstr("rooms: expected an array"));
  EXPECT_EQ(http_get("127.0.0.1", d.port, "/healthz").status, 200);
}

// docs/protocol.md's statuses, each provoked: 404 for history or presence
// turned off, 413 for data over max_publication_bytes (for a broadcast too,
// which then publishes nowhere).
TEST(GatewayApi, EachRefusalHasItsStatus) {
  const std::string conf = write_temp_file("api-status.toml", R"([api]
key = "k3y"

[namespaces.quiet]
history_size = 0
presence = false
max_publication_bytes = 16
)");
  Daemon d({"--config", conf});
  HttpReply r = post(d.port, "/api/history", R"({"room":"quiet:x"})");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(json_str(r.body, "/error/code"), "not_available") << r.body;
  EXPECT_THAT(r.body, HasSubstr("history is off"));
  r = post(d.port, "/api/presence", R"({"room":"quiet:x"})");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_THAT(r.body, HasSubstr("presence is off"));
  const std::string big = R"("0123456789012345678901234567890123456789")";
  r = post(d.port, "/api/publish", R"({"room":"quiet:x","data":)" + big + "}");
  EXPECT_EQ(r.status, 413) << r.body;
  EXPECT_THAT(r.body, HasSubstr("max_publication_bytes is 16"));
  // A broadcast whose data is too large for one of its rooms publishes in
  // none of them.
  r = post(d.port, "/api/broadcast", R"({"rooms":["news","quiet:x"],"data":)" + big + "}");
  EXPECT_EQ(r.status, 413) << r.body;
  r = post(d.port, "/api/history", R"({"room":"news"})");
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 0u) << r.body;
}

// docs/protocol.md: a broadcast answers each room on its own, in the
// request's order; a room refused by the broker (moderation, the room
// budget) does not keep the others from publishing, and their subscribers
// receive the data. A bad room name, like data too large, refuses the whole
// request before anything is published.
TEST(GatewayApi, ABroadcastAnswersEachRoomAndPublishesInTheOthers) {
  const std::string conf = write_temp_file("api-broadcast.toml", R"([api]
key = "k3y"

[rooms]
max_rooms = 3

[namespaces.chat]
moderation = "banned"
)");
  Daemon d({"--config", conf});
  HttpReply r = post(d.port, "/api/keywords/banned/add",
                     R"({"keywords":[{"keyword":"scam","action":"reject"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto alice = connect_as(d.port, "alice");
  std::uint32_t id = 2;
  for (const char* room : {"news", "alerts", "chat:lobby"})  // rooms.max_rooms reached
    ASSERT_TRUE(json_has(subscribe(*alice, id++, room), "/result"));

  r = post(d.port, "/api/broadcast",
           R"({"rooms":["news","chat:lobby","ghost","alerts"],"data":{"text":"scam offer"}})");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(json_size(r.body, "/result/responses"), 4u) << r.body;
  const auto at = [&](int i, const std::string& field) {
    return "/result/responses/" + std::to_string(i) + field;
  };
  const std::string rooms[] = {"news", "chat:lobby", "ghost", "alerts"};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(json_str(r.body, at(i, "/room")), rooms[i]) << r.body;
  EXPECT_EQ(json_uint(r.body, at(0, "/offset")), 1u) << r.body;
  EXPECT_TRUE(json_str(r.body, at(0, "/epoch")).has_value()) << r.body;
  EXPECT_EQ(json_uint(r.body, at(1, "/error/code")), 113u) << r.body;  // moderation_rejected
  EXPECT_FALSE(json_has(r.body, at(1, "/offset"))) << r.body;
  EXPECT_EQ(json_uint(r.body, at(2, "/error/code")), 115u) << r.body;  // too_many_rooms
  EXPECT_THAT(json_str(r.body, at(2, "/error/message")).value_or(""), HasSubstr("rooms.max_rooms"));
  EXPECT_EQ(json_uint(r.body, at(3, "/offset")), 1u) << r.body;

  // The subscriber got the data in the two rooms that took it, and the
  // refused rooms hold nothing.
  std::set<std::string> got;
  for (int i = 0; i < 2; ++i) {
    auto m = alice->next();
    ASSERT_TRUE(m) << "publication " << i << " missing";
    EXPECT_EQ(json_raw(*m, "/pub/data"), R"({"text":"scam offer"})") << *m;
    got.insert(json_str(*m, "/pub/room").value_or(""));
  }
  EXPECT_EQ(got, (std::set<std::string>{"news", "alerts"}));
  r = post(d.port, "/api/history", R"({"room":"chat:lobby"})");
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 0u) << r.body;
  EXPECT_EQ(metric_value(http_get("127.0.0.1", d.port, "/metrics").body, "herald_rooms"), 3.0);

  // A bad name among good ones: 400 naming it, and no room publishes.
  r = post(d.port, "/api/broadcast", R"({"rooms":["news","bad room"],"data":1})");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("'bad room'"));
  r = post(d.port, "/api/history", R"({"room":"news"})");
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 1u) << r.body;
}

TEST(GatewayApi, OffWithoutAKeyOutsideDevMode) {
  Daemon d({"--auth.dev_mode", "off"});
  HttpReply r = post(d.port, "/api/publish", R"({"room":"x","data":1})", "");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_THAT(r.body, HasSubstr("set api.key"));
}

}  // namespace
}  // namespace herald::test
