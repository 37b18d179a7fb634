// GET /sse against a real heraldd, read by curl (support/sse_stream.hpp):
// the opening events, every publication once and in order with an id that
// carries every room's position, an exact resume from Last-Event-ID, the
// explicit event when a resume cannot be exact, the errors that refuse a
// request before the stream starts, the same hub and broker as WebSocket
// clients, heartbeats, the slow-consumer bound, shutdown and token expiry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <csignal>

#include "core/time/unix_clock.hpp"
#include "gateway/auth/token.hpp"
#include "support/http_client.hpp"
#include "support/sse_stream.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

constexpr char kSecret[] = "sse-test-secret-that-is-long-enough-32b";

std::string api_publish(std::uint16_t port, const std::string& room, const std::string& data,
                        bool skip_history = false) {
  HttpReply r = api_post(port, "/api/publish",
                         R"({"room":")" + room + R"(","data":)" + data +
                             (skip_history ? R"(,"skip_history":true})" : "}"));
  EXPECT_EQ(r.status, 200) << r.body;
  return r.body;
}

// The opening: "connected", then one event per room; returns them.
std::vector<SseEvent> opening(SseStream& s, std::size_t rooms) {
  std::vector<SseEvent> out;
  auto connected = s.next();
  EXPECT_TRUE(connected && connected->event == "connected") << s.output();
  if (!connected) return out;
  EXPECT_TRUE(json_has(connected->data, "/client")) << connected->data;
  for (std::size_t i = 0; i < rooms; ++i) {
    auto e = s.next();
    EXPECT_TRUE(e) << s.output();
    if (!e) break;
    out.push_back(*e);
  }
  return out;
}

// The publication events that follow, `n` of them: their data offsets.
std::vector<std::uint64_t> offsets_of(SseStream& s, const std::string& room, std::size_t n) {
  std::vector<std::uint64_t> out;
  while (out.size() < n) {
    auto e = s.next();
    EXPECT_TRUE(e) << "after " << out.size() << " of " << n << ":\n" << s.output();
    if (!e) break;
    if (!json_has(e->data, "/pub")) continue;
    EXPECT_EQ(json_str(e->data, "/pub/room"), room);
    out.push_back(json_uint(e->data, "/pub/offset").value_or(0));
  }
  return out;
}

TEST(Sse, StreamsEachPublicationWithEveryRoomsPosition) {
  Daemon d;
  SseStream s(d.port, "/sse?room=news&room=chat%3Alobby&user=alice");
  auto open = opening(s, 2);
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[0].event, "subscribed");
  EXPECT_EQ(json_str(open[0].data, "/room"), "news");
  EXPECT_EQ(json_str(open[1].data, "/room"), "chat:lobby");
  EXPECT_EQ(json_bool(open[1].data, "/recovered"), false);
  const std::string news_epoch = json_str(open[0].data, "/epoch").value_or("?");
  const std::string chat_epoch = json_str(open[1].data, "/epoch").value_or("?");
  EXPECT_EQ(open[1].id, "news." + news_epoch + ".0,chat:lobby." + chat_epoch + ".0");

  api_publish(d.port, "news", R"({"n":1})");
  api_publish(d.port, "chat:lobby", R"("hi")");
  auto pub = s.next();
  ASSERT_TRUE(pub) << s.output();
  EXPECT_EQ(pub->event, "");  // a default event: EventSource's onmessage
  EXPECT_EQ(pub->data,
            R"({"pub":{"room":"news","offset":1,"epoch":")" + news_epoch + R"(","data":{"n":1}}})");
  EXPECT_EQ(pub->id, "news." + news_epoch + ".1,chat:lobby." + chat_epoch + ".0");
  pub = s.next();
  ASSERT_TRUE(pub) << s.output();
  EXPECT_EQ(json_str(pub->data, "/pub/data"), "hi");
  EXPECT_EQ(pub->id, "news." + news_epoch + ".1,chat:lobby." + chat_epoch + ".1");

  // Outside the stream: delivered, with no id, so the position stays.
  api_publish(d.port, "news", R"("flash")", true);
  pub = s.next();
  ASSERT_TRUE(pub) << s.output();
  EXPECT_EQ(pub->data, R"({"pub":{"room":"news","data":"flash"}})");
  EXPECT_FALSE(pub->id);
  EXPECT_EQ(s.last_id(), "news." + news_epoch + ".1,chat:lobby." + chat_epoch + ".1");
}

TEST(Sse, ResumesExactlyFromLastEventId) {
  Daemon d;
  auto first = std::make_unique<SseStream>(d.port, "/sse?room=a&room=b&user=u");
  ASSERT_EQ(opening(*first, 2).size(), 2u);
  for (int i = 1; i <= 3; ++i) api_publish(d.port, "a", std::to_string(i));
  EXPECT_EQ(offsets_of(*first, "a", 3), (std::vector<std::uint64_t>{1, 2, 3}));
  const std::string id = first->last_id();
  first->cut();

  // Missed while away, in both rooms.
  for (int i = 4; i <= 6; ++i) api_publish(d.port, "a", std::to_string(i));
  api_publish(d.port, "b", "\"b1\"");

  SseStream again(d.port, "/sse?room=a&room=b&user=u", {"Last-Event-ID: " + id});
  auto open = opening(again, 2);
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[0].event, "subscribed");
  EXPECT_EQ(json_bool(open[0].data, "/recovered"), true);
  EXPECT_EQ(json_bool(open[1].data, "/recovered"), true);
  EXPECT_EQ(open[1].id, id);      // the opening stands where the client stopped
  api_publish(d.port, "a", "7");  // live, after the recovered ones
  std::vector<std::string> got;
  while (got.size() < 5) {
    auto e = again.next();
    ASSERT_TRUE(e) << again.output();
    got.push_back(json_str(e->data, "/pub/room").value_or("?") +
                  std::to_string(json_uint(e->data, "/pub/offset").value_or(0)));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"a4", "a5", "a6", "b1", "a7"}));
  const std::string after_a7 = again.last_id();
  // Nothing more: each publication came once. A duplicate would come
  // before a later publication, so the next event is that one.
  api_publish(d.port, "b", "2");
  auto later = again.next();
  ASSERT_TRUE(later) << again.output();
  EXPECT_EQ(json_str(later->data, "/pub/room"), "b") << later->data;
  EXPECT_EQ(json_uint(later->data, "/pub/offset"), 2u) << later->data;

  // The query form, for a client that opens a new stream itself.
  SseStream by_query(d.port, "/sse?room=a&user=u&last_event_id=" + after_a7);
  auto q = opening(by_query, 1);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(json_bool(q[0].data, "/recovered"), true);
  api_publish(d.port, "a", "8");
  EXPECT_EQ(offsets_of(by_query, "a", 1), (std::vector<std::uint64_t>{8}));
}

TEST(Sse, SaysExplicitlyWhenARoomCannotBeResumed) {
  Daemon d({"--rooms.history_size", "2"});
  SseStream first(d.port, "/sse?room=a&user=u");
  ASSERT_EQ(opening(first, 1).size(), 1u);
  api_publish(d.port, "a", "1");
  ASSERT_EQ(offsets_of(first, "a", 1).size(), 1u);
  const std::string id = first.last_id();
  first.cut();
  // More missed than the history keeps: not recoverable.
  for (int i = 2; i <= 5; ++i) api_publish(d.port, "a", std::to_string(i));

  std::uint64_t top = 5;
  for (const std::string& last : {id, std::string("a.not-this-epoch.1")}) {
    SseStream again(d.port, "/sse?room=a&user=u", {"Last-Event-ID: " + last});
    auto open = opening(again, 2);
    ASSERT_EQ(open.size(), 2u) << again.output();
    EXPECT_EQ(open[0].event, "recovery");
    EXPECT_EQ(json_str(open[0].data, "/room"), "a");
    EXPECT_EQ(json_bool(open[0].data, "/recovered"), false);
    EXPECT_EQ(json_uint(open[0].data, "/offset"), top);
    EXPECT_EQ(open[1].event, "subscribed");
    EXPECT_EQ(json_bool(open[1].data, "/recovered"), false);
    // No publication comes from before: the stream goes on from its top,
    // so the next event is the next publication.
    EXPECT_THAT(open[1].id.value_or(""), HasSubstr("." + std::to_string(top)));
    api_publish(d.port, "a", std::to_string(++top));
    auto next = again.next();
    ASSERT_TRUE(next) << again.output();
    EXPECT_EQ(json_uint(next->data, "/pub/offset"), top) << next->data;
  }
}

TEST(Sse, RefusesABadRequestBeforeTheStreamStarts) {
  Daemon d({"--client.max_subscriptions", "2"});
  const auto get = [&](const std::string& target, std::map<std::string, std::string> h = {}) {
    return http_request("127.0.0.1", d.port, HttpCall{"GET", target, std::move(h), ""});
  };
  struct Case {
    std::string target;
    std::map<std::string, std::string> headers;
    int status;
    std::string says;
  };
  const std::vector<Case> cases{
      {"/sse?room=a&user=u", {{"Last-Event-ID", "a.e1"}}, 400, "'a.e1' is not ROOM.EPOCH.OFFSET"},
      {"/sse?room=a&user=u&last_event_id=a.e.x", {}, 400, "the offset must be a decimal number"},
      {"/sse?user=u", {}, 400, "at least one room"},
      {"/sse?room=bad%20room&user=u", {}, 400, "bad_room"},
      {"/sse?room=a&room=a&user=u", {}, 400, "named twice"},
      {"/sse?room=a&room=b&room=c&user=u", {}, 400, "client.max_subscriptions (2)"},
      {"/sse?room=a%zz&user=u", {}, 400, "not followed by two hex digits"},
      {"/sse?room=a", {}, 401, "user=<name>"},
  };
  for (const Case& c : cases) {
    HttpReply r = get(c.target, c.headers);
    EXPECT_EQ(r.status, c.status) << c.target;
    EXPECT_THAT(r.body, HasSubstr(c.says)) << c.target;
  }
  EXPECT_THAT(get("/sse?room=a&user=u", {{"Last-Event-ID", "a.e1"}}).body,
              HasSubstr("bad_event_id"));
  HttpReply r = http_request("127.0.0.1", d.port, HttpCall{"POST", "/sse?room=a&user=u", {}, ""});
  EXPECT_EQ(r.status, 405);
  // The server goes on serving streams.
  SseStream s(d.port, "/sse?room=a&user=u");
  EXPECT_EQ(opening(s, 1).size(), 1u);
}

TEST(Sse, TokensInTheHeaderOrTheQueryWithTheirRooms) {
  Daemon d({"--auth.hmac_secret", kSecret});
  gateway::auth::Claims claims;
  claims.user = "carol";
  claims.rooms = std::vector<std::string>{"team:*"};
  const std::string token = gateway::auth::sign_hs256(claims, kSecret);
  const auto get = [&](const std::string& target, std::map<std::string, std::string> h = {}) {
    return http_request("127.0.0.1", d.port, HttpCall{"GET", target, std::move(h), ""});
  };
  HttpReply r = get("/sse?room=team:x&user=carol");  // no dev mode: user= is not enough
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(r.body, HasSubstr("a token is required"));
  r = get("/sse?room=other", {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("the token does not allow room 'other'"));
  // A private room needs its subscription token, which no URL should carry.
  claims.rooms.reset();
  const std::string any_room = gateway::auth::sign_hs256(claims, kSecret);
  r = get("/sse?room=%24team", {{"Authorization", "Bearer " + any_room}});
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("'$team' is private"));
  // A user-limited room, for its users only.
  r = get("/sse?room=dm%23dave,erin", {{"Authorization", "Bearer " + any_room}});
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("limited to the users after its '#'"));
  r = get("/sse?room=team:x", {{"Authorization", "Bearer " + token + "x"}});
  EXPECT_EQ(r.status, 401);
  r = get("/sse?room=team:x", {{"Authorization", "Basic abc"}});
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(r.body, HasSubstr("Bearer <token>"));

  SseStream header(d.port, "/sse?room=team:x", {"Authorization: Bearer " + token});
  auto connected = header.next();
  ASSERT_TRUE(connected) << header.output();
  EXPECT_EQ(json_str(connected->data, "/user"), "carol");
  SseStream query(d.port, "/sse?room=team:x&token=" + token);
  connected = query.next();
  ASSERT_TRUE(connected) << query.output();
  EXPECT_EQ(json_str(connected->data, "/user"), "carol");

  // A token's exp ends the stream: a disconnect push (3003), then the end.
  claims.expires_at = herald::unix_now() + 2;
  SseStream expiring(d.port,
                     "/sse?room=team:x&token=" + gateway::auth::sign_hs256(claims, kSecret));
  auto bye = expiring.next_named("", std::chrono::seconds(15));
  ASSERT_TRUE(bye) << expiring.output();
  EXPECT_EQ(json_uint(bye->data, "/disconnect/code"), 3003u);
  EXPECT_TRUE(expiring.wait_ended());
}

TEST(Sse, SharesTheHubAndTheBrokerWithWebSocketClients) {
  Daemon d({"--rooms.join_leave", "true"});
  auto ws = connect_as(d.port, "bob");
  subscribe(*ws, 2, "room");
  SseStream s(d.port, "/sse?room=room&user=alice");
  ASSERT_EQ(opening(s, 1).size(), 1u);
  // The stream is a subscriber like any: its presence entry and join push.
  std::deque<std::string> pushes;
  auto presence = request(*ws, 3, R"({"id":3,"presence":{"room":"room"}})", &pushes);
  ASSERT_TRUE(presence);
  EXPECT_THAT(*presence, HasSubstr(R"("user":"alice")"));
  // A WebSocket client's publication reaches the stream, once.
  EXPECT_THAT(publish(*ws, 4, "room", R"({"text":"hello"})"), HasSubstr(R"("offset":1)"));
  auto pub = s.next_named("");
  ASSERT_TRUE(pub) << s.output();
  EXPECT_EQ(json_str(pub->data, "/pub/data/text"), "hello");
  EXPECT_EQ(json_str(pub->data, "/pub/info/user"), "bob");
  const std::string metrics = http_get("127.0.0.1", d.port, "/metrics").body;
  EXPECT_EQ(metric_value(metrics, "herald_sse_streams"), 1.0);
  EXPECT_EQ(metric_value(metrics, "herald_subscriptions"), 2.0);
  // Closing the stream leaves the room: bob sees alice leave.
  s.cut();
  bool left = false;
  for (int i = 0; i < 50 && !left; ++i) {
    auto m = ws->next(std::chrono::milliseconds(200));
    if (m && m->find(R"("leave")") != std::string::npos) left = true;
  }
  EXPECT_TRUE(left);
}

TEST(Sse, ARoomBehindTheSubscribeHookIsRefusedAndTheOthersGoOn) {
  // The hook is never reached: the address answers nothing.
  const std::string conf =
      write_temp_file("sse-gated.toml", "[namespaces.gated]\nsubscribe_proxy = true\n");
  Daemon d({"--config", conf, "--proxy.subscribe_url", "http://127.0.0.1:9/subscribe"});
  SseStream s(d.port, "/sse?room=gated:x&room=open&user=u");
  auto open = opening(s, 2);
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[0].event, "refused");
  EXPECT_EQ(json_str(open[0].data, "/room"), "gated:x");
  EXPECT_EQ(json_uint(open[0].data, "/error/code"), 108u);
  EXPECT_THAT(json_str(open[0].data, "/error/message").value_or(""), HasSubstr("subscribe_proxy"));
  EXPECT_EQ(open[1].event, "subscribed");
  // The refused room is not in the id: the client never stood anywhere in it.
  EXPECT_EQ(open[1].id.value_or("").find("gated"), std::string::npos);
  api_publish(d.port, "open", "1");
  EXPECT_EQ(offsets_of(s, "open", 1), (std::vector<std::uint64_t>{1}));
}

TEST(Sse, HeartbeatsKeepAQuietStreamTalking) {
  Daemon d({"--client.sse_heartbeat", "100ms"});
  SseStream s(d.port, "/sse?room=quiet&user=u");
  ASSERT_EQ(opening(s, 1).size(), 1u);
  const std::size_t before = s.comments();
  for (int i = 0; i < 100 && s.comments() < before + 3; ++i) {
    EXPECT_FALSE(s.next(std::chrono::milliseconds(50)));  // comments are no events
  }
  EXPECT_GE(s.comments(), before + 3) << s.output();
}

TEST(Sse, ASlowConsumerIsClosedAndOthersGoOn) {
  Daemon d({"--client.max_queue_bytes", "65536"});
  // A client that sends its request and never reads, with a small receive
  // buffer so the kernel holds little for it.
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket stuck(io);
  stuck.open(boost::asio::ip::tcp::v4());
  stuck.set_option(boost::asio::socket_base::receive_buffer_size(4096));
  stuck.connect({boost::asio::ip::make_address("127.0.0.1"), d.port});
  const std::string req = "GET /sse?room=flood&user=stuck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  boost::asio::write(stuck, boost::asio::buffer(req));
  SseStream bystander(d.port, "/sse?room=calm&user=reader");
  ASSERT_EQ(opening(bystander, 1).size(), 1u);

  // The server's send buffer grows to a few MB before the queue fills.
  const std::string big = "\"" + std::string(15000, 'x') + "\"";
  double slow = 0;
  int published = 0;
  for (; published < 2000 && slow < 1; ++published) {
    api_publish(d.port, "flood", big);
    if (published % 10 == 9) {
      slow = metric_value(http_get("127.0.0.1", d.port, "/metrics").body,
                          "herald_slow_consumer_disconnects_total");
    }
  }
  EXPECT_EQ(slow, 1.0) << "after " << published << " publications";
  // The stuck client's connection was closed by the server.
  boost::system::error_code ec;
  std::array<char, 65536> sink{};
  std::size_t drained = 0;
  while (!ec && drained < (64u << 20)) drained += stuck.read_some(boost::asio::buffer(sink), ec);
  EXPECT_TRUE(ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset)
      << ec.message();
  // Others go on.
  api_publish(d.port, "calm", "1");
  EXPECT_EQ(offsets_of(bystander, "calm", 1), (std::vector<std::uint64_t>{1}));
}

HttpReply client_publish(std::uint16_t port, const std::string& query, const std::string& body,
                         std::map<std::string, std::string> headers = {
                             {"Content-Type", "application/json"}}) {
  return http_request("127.0.0.1", port,
                      HttpCall{"POST", "/sse/publish" + query, std::move(headers), body});
}

TEST(Sse, ClientsPublishOverHttpThroughTheSameChecksAndModeration) {
  const std::string conf = write_temp_file("sse-publish.toml", R"(
[rooms]
moderation = "words"
max_publication_bytes = 200

[namespaces.ro]
publish = false

[namespaces.gated]
publish_proxy = true
)");
  // The publish hook's URL is never asked: an HTTP publish asks no hooks.
  Daemon d({"--config", conf, "--client.publish_rate", "1", "--proxy.publish_url",
            "http://127.0.0.1:9/publish"});
  HttpReply r = api_post(d.port, "/api/keywords/words/add",
                         R"({"keywords":[{"keyword":"darn","action":"mask"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  SseStream s(d.port, "/sse?room=lobby&user=bob");
  ASSERT_EQ(opening(s, 1).size(), 1u);

  r = client_publish(d.port, "?user=alice", R"({"room":"lobby","data":{"text":"darn it"}})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 1u);
  auto pub = s.next();
  ASSERT_TRUE(pub) << s.output();
  EXPECT_EQ(json_str(pub->data, "/pub/data/text"), "**** it");  // moderated as any
  EXPECT_EQ(json_str(pub->data, "/pub/info/user"), "alice");
  EXPECT_EQ(pub->id.value_or("").substr(pub->id.value_or("").rfind('.')), ".1");

  struct Case {
    std::string query;
    std::string body;
    std::map<std::string, std::string> headers;
    int status;
    std::string says;
  };
  const std::map<std::string, std::string> json{{"Content-Type", "application/json"}};
  const std::vector<Case> cases{
      {"?user=carol",
       R"({"room":"lobby","data":1})",
       {{"Content-Type", "text/plain"}},
       415,
       "Content-Type"},
      {"", R"({"room":"lobby","data":1})", json, 401, "user=<name>"},
      {"?user=carol", R"({"data":1})", json, 400, "room: expected a string"},
      {"?user=carol", R"({"room":"lobby"})", json, 400, "data: expected a JSON value"},
      {"?user=carol", "not json", json, 400, "body is not valid JSON"},
      {"?user=carol", R"({"room":"bad room","data":1})", json, 400, "bad_room"},
      {"?user=carol", R"({"room":"ro:x","data":1})", json, 403, "publish = false"},
      {"?user=carol", R"({"room":"lobby","data":")" + std::string(300, 'x') + R"("})", json, 413,
       "max_publication_bytes is 200"},
      {"?user=carol", R"({"room":"gated:x","data":1})", json, 404, "publish_proxy"},
  };
  for (const Case& c : cases) {
    r = client_publish(d.port, c.query, c.body, c.headers);
    EXPECT_EQ(r.status, c.status) << c.body;
    EXPECT_THAT(r.body, HasSubstr(c.says)) << c.body;
  }
  // client.publish_rate 1: alice's burst is spent; dave's is not.
  r = client_publish(d.port, "?user=alice", R"({"room":"lobby","data":2})");
  EXPECT_EQ(r.status, 429) << r.body;
  EXPECT_THAT(r.body, HasSubstr("client.publish_rate"));
  r = client_publish(d.port, "?user=dave", R"({"room":"lobby","data":3})");
  EXPECT_EQ(r.status, 200) << r.body;
  // None of the refused ones was published: the next is offset 2.
  pub = s.next();
  ASSERT_TRUE(pub) << s.output();
  EXPECT_EQ(json_uint(pub->data, "/pub/offset"), 2u);
  EXPECT_EQ(json_raw(pub->data, "/pub/data"), "3");
}

TEST(Sse, ShutdownTellsTheStreamToReconnect) {
  Daemon d;
  SseStream s(d.port, "/sse?room=a&user=u");
  ASSERT_EQ(opening(s, 1).size(), 1u);
  d.proc->signal(SIGTERM);
  auto bye = s.next_named("");
  ASSERT_TRUE(bye) << s.output();
  EXPECT_EQ(json_uint(bye->data, "/disconnect/code"), 3001u);
  EXPECT_EQ(json_bool(bye->data, "/disconnect/reconnect"), true);
  EXPECT_TRUE(s.wait_ended());
  EXPECT_EQ(d.proc->wait_exit(std::chrono::seconds(20)), 0);
}

}  // namespace
}  // namespace herald::test
