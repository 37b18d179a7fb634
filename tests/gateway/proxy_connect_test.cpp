// The connect hook through a real heraldd to a real application backend
// (support/backend.mjs): a connect without a token is the backend's to
// decide, from the upgrade's headers (a session cookie) and the connect's
// data. What the backend grants (user, info, data, expiry, server-side
// subscriptions) must reach the client exactly; every way it refuses or
// fails must leave the connection able to try again, or closed as the
// backend said, and every other client untouched. The JWT's `subs` claim
// makes server-side subscriptions the same way. The refresh hook, asked
// when a connection's expiry comes, extends it, ends it, or is asked again
// when it fails; nothing here measures time: each test waits for the
// backend to have been asked, or for the close.
#include <chrono>
#include <thread>

#include "gateway/auth/token.hpp"
#include "proxy_backend.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> connect_flags(const Backend& b, std::vector<std::string> more = {}) {
  std::vector<std::string> f{"--proxy.connect_url", b.url("connect")};
  f.insert(f.end(), more.begin(), more.end());
  return f;
}

std::unique_ptr<WsClient> open_with(const Daemon& d, WsClient::Headers headers) {
  return std::make_unique<WsClient>("127.0.0.1", d.port, "/ws", "", headers);
}

std::string connect_cmd(std::uint32_t id, const std::string& data = "") {
  std::string cmd = R"({"id":)" + std::to_string(id) + R"(,"connect":{)";
  if (!data.empty()) cmd += R"("data":)" + data;
  return cmd + "}}";
}

std::string connect(WsClient& c, std::uint32_t id, const std::string& data = "") {
  auto r = request(c, id, connect_cmd(id, data));
  EXPECT_TRUE(r) << "no reply to connect";
  return r.value_or("");
}

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(ProxyConnect, ASessionCookieConnectsAsTheBackendsUser) {
  Backend backend;
  Daemon d(connect_flags(backend));
  auto c = open_with(d, {{"Cookie", "theme=dark; session=alice"}});
  auto r = connect(*c, 1);
  EXPECT_EQ(json_str(r, "/result/user"), "alice") << r;
  EXPECT_EQ(json_str(r, "/result/data/welcome"), "alice") << r;
  EXPECT_FALSE(json_has(r, "/result/subs")) << r;
  // The backend's info rides on the user's publications.
  subscribe(*c, 2, "chat:lobby");
  c->send(R"({"id":3,"publish":{"room":"chat:lobby","data":"hi"}})");
  std::optional<std::string> pub;
  for (int i = 0; i < 3 && !(pub && json_has(*pub, "/pub")); ++i) pub = c->next();
  ASSERT_TRUE(pub);
  EXPECT_EQ(json_str(*pub, "/pub/info/user"), "alice") << *pub;
  EXPECT_EQ(json_str(*pub, "/pub/info/info/via"), "cookie") << *pub;
  EXPECT_EQ(json_str(*pub, "/pub/info/client"), json_str(r, "/result/client")) << *pub;
}

TEST(ProxyConnect, TheRequestCarriesTheListedHeadersTheClientAndItsData) {
  Backend backend;
  Daemon d(connect_flags(backend));
  auto c = open_with(d, {{"Cookie", "session=x"},
                         {"Authorization", "Bearer abc"},
                         {"X-Real-Ip", "198.51.100.7"},
                         {"X-Forwarded-For", "203.0.113.9"},
                         {"X-Unlisted", "secret"}});
  auto r = connect(*c, 1, R"({"mode":"echo","n":[1,2]})");
  EXPECT_EQ(json_str(r, "/result/user"), "echo") << r;
  // What heraldd POSTed, as the backend read it.
  EXPECT_EQ(json_str(r, "/result/data/client"), json_str(r, "/result/client")) << r;
  EXPECT_EQ(json_str(r, "/result/data/transport"), "websocket") << r;
  EXPECT_EQ(json_str(r, "/result/data/protocol"), "json") << r;
  EXPECT_EQ(json_str(r, "/result/data/headers/cookie"), "session=x") << r;
  EXPECT_EQ(json_str(r, "/result/data/headers/authorization"), "Bearer abc") << r;
  EXPECT_EQ(json_str(r, "/result/data/headers/x-real-ip"), "198.51.100.7") << r;
  // The client's address is appended after whatever the client claimed.
  EXPECT_EQ(json_str(r, "/result/data/headers/x-forwarded-for"), "203.0.113.9, 127.0.0.1") << r;
  EXPECT_FALSE(json_has(r, "/result/data/headers/x-unlisted")) << r;
  EXPECT_EQ(json_uint(r, "/result/data/data/n/1"), 2u) << r;

  // proxy.forward_headers chooses: only what it lists (any case) goes.
  Daemon narrow(connect_flags(backend, {"--proxy.forward_headers", " x-UNLISTED ,"}));
  auto n = std::make_unique<WsClient>(
      "127.0.0.1", narrow.port, "/ws", "",
      WsClient::Headers{{"Cookie", "session=x"}, {"X-Unlisted", "secret"}});
  auto rn = connect(*n, 1, R"({"mode":"echo"})");
  EXPECT_EQ(json_str(rn, "/result/data/headers/x-unlisted"), "secret") << rn;
  EXPECT_FALSE(json_has(rn, "/result/data/headers/cookie")) << rn;
  EXPECT_EQ(json_str(rn, "/result/data/headers/x-forwarded-for"), "127.0.0.1") << rn;
}

TEST(ProxyConnect, TheBackendsErrorIsTheConnectErrorAndCloses) {
  Backend backend;
  Daemon d(connect_flags(backend));
  auto bystander = open_with(d, {{"Cookie", "session=bob"}});
  connect(*bystander, 1);
  auto c = open_with(d, {});
  EXPECT_EQ(connect(*c, 1), R"({"id":1,"error":{"code":1401,"message":"sign in first"}})");
  EXPECT_EQ(c->wait_closed().value_or(CloseInfo{}).code, 3501);
  expect_alive(*bystander, 2);
}

TEST(ProxyConnect, TheBackendsDisconnectClosesWithItsCode) {
  Backend backend;
  Daemon d(connect_flags(backend));
  auto c = open_with(d, {});
  c->send(connect_cmd(1, R"({"mode":"disconnect"})"));
  auto push = c->next();
  ASSERT_TRUE(push);
  // 4000-4499: the client may reconnect (docs/protocol.md, disconnect codes).
  EXPECT_EQ(*push, R"({"disconnect":{"code":4403,"reason":"banned","reconnect":true}})");
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 4403);
}

TEST(ProxyConnect, BadAnswersAndFailuresAreTemporaryAndTheClientMayRetry) {
  Backend backend;
  Daemon d(connect_flags(backend, {"--proxy.timeout", "2s"}));
  auto bystander = open_with(d, {{"Cookie", "session=bob"}});
  connect(*bystander, 1);
  auto c = open_with(d, {{"Cookie", "session=carol"}});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"no_user", "bad_answer"},   {"bad_room", "bad_answer"}, {"stall", "timeout"},
      {"status500", "bad_status"}, {"invalid", "bad_answer"},  {"hangup", "unavailable"},
  };
  std::uint32_t id = 1;
  for (const auto& [mode, kind] : cases) {
    SCOPED_TRACE(mode);
    auto r = connect(*c, id++, R"({"mode":")" + mode + "\"}");
    EXPECT_EQ(json_uint(r, "/error/code"), 116u) << r;
    EXPECT_THAT(json_str(r, "/error/message").value_or(""), StartsWith(kind + ": connect backend"))
        << r;
    EXPECT_FALSE(c->closed());
  }
  EXPECT_EQ(proxy_errors(d, "connect", "bad_answer"), 3);
  EXPECT_EQ(proxy_errors(d, "connect", "timeout"), 1);
  // The same connection connects once the backend answers well.
  EXPECT_EQ(json_str(connect(*c, id++), "/result/user"), "carol");
  expect_alive(*bystander, 2);
}

TEST(ProxyConnect, OneConnectAtATime) {
  Backend backend;
  Daemon d(connect_flags(backend, {"--proxy.timeout", "60s"}));
  auto c = open_with(d, {});
  c->send(connect_cmd(1, R"({"mode":"stall"})"));
  auto second = connect(*c, 2);
  EXPECT_EQ(json_uint(second, "/error/code"), 112u) << second;  // already_connected
  EXPECT_THAT(second, HasSubstr("in progress"));
  // Nothing but connect is served before the backend decides.
  auto early = request(*c, 3, R"({"id":3,"subscribe":{"room":"chat:x"}})");
  ASSERT_TRUE(early);
  EXPECT_FALSE(json_has(*early, "/result")) << *early;
}

TEST(ProxyConnect, ServerSideSubscriptionsAreMadeBeforeTheReply) {
  Backend backend;
  Daemon d(connect_flags(backend, {"--client.max_subscriptions", "2"}));
  auto publisher = open_with(d, {{"Cookie", "session=pat"}});
  connect(*publisher, 1);
  publish(*publisher, 2, "chat:a", R"("before")");

  auto c = open_with(d, {{"Cookie", "session=sam"}});
  // Three rooms (one twice) against a limit of two: the third is refused
  // in the reply, the others are subscribed.
  auto r = connect(*c, 1, R"({"rooms":["chat:a","chat:b","chat:a","chat:c"]})");
  EXPECT_EQ(json_str(r, "/result/user"), "sam") << r;
  EXPECT_EQ(json_uint(r, "/result/subs/chat:a/offset"), 1u) << r;
  EXPECT_TRUE(json_has(r, "/result/subs/chat:a/epoch")) << r;
  EXPECT_EQ(json_uint(r, "/result/subs/chat:b/offset"), 0u) << r;
  EXPECT_EQ(json_uint(r, "/result/subs/chat:c/error/code"), 106u) << r;

  // Publications arrive without a subscribe command.
  publish(*publisher, 3, "chat:b", R"("to b")");
  auto pub = c->next();
  ASSERT_TRUE(pub);
  EXPECT_EQ(json_str(*pub, "/pub/room"), "chat:b") << *pub;
  EXPECT_EQ(json_str(*pub, "/pub/data"), "to b") << *pub;
  // They are ordinary subscriptions: unsubscribe ends one.
  auto u = request(*c, 2, R"({"id":2,"unsubscribe":{"room":"chat:a"}})");
  EXPECT_EQ(u.value_or(""), R"({"id":2,"result":{}})");
  publish(*publisher, 4, "chat:a", R"("gone")");
  publish(*publisher, 5, "chat:b", R"("still")");
  auto next = c->next();
  ASSERT_TRUE(next);
  EXPECT_EQ(json_str(*next, "/pub/data"), "still") << *next;
}

TEST(ProxyConnect, ExpireAtIsEnforcedAndAFarFutureOneIsHeld) {
  Backend backend;
  Daemon d(connect_flags(backend));
  auto brief = open_with(d, {{"Cookie", "session=dan"}});
  const std::int64_t at = now_s() + 2;  // whole seconds: +1 may be past on a loaded machine
  auto r = connect(*brief, 1, R"({"expire_at":)" + std::to_string(at) + "}");
  EXPECT_EQ(json_uint(r, "/result/expires"), static_cast<std::uint64_t>(at)) << r;
  // The expiry closes the connection (no refresh_url: 3003).
  auto closed = brief->wait_closed(std::chrono::seconds(15));
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 3003);

  auto never = open_with(d, {{"Cookie", "session=eve"}});
  auto n = connect(*never, 1, R"({"expire_at":253402300799})");
  EXPECT_EQ(json_uint(n, "/result/expires"), 253402300799u) << n;
  expect_alive(*never, 2);
}

TEST(ProxyConnect, ATokenStillConnectsWithoutTheBackend) {
  Backend backend;
  const std::string secret = "test-secret-of-thirty-two-bytes!";
  Daemon d(connect_flags(backend, {"--auth.hmac_secret", secret}));
  gateway::auth::Claims claims;
  claims.user = "tok";
  auto c = open_with(d, {});
  auto r = request(
      *c, 1,
      R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(claims, secret) + "\"}}");
  EXPECT_EQ(json_str(r.value_or(""), "/result/user"), "tok");
  EXPECT_EQ(backend.stat("requests"), 0u);
}

// Centrifugo's meta: what the connection's token, or the connect hook's
// result, attaches for the application's own hooks. Every hook request
// for the connection carries it (here the rpc hook, which echoes what
// heraldd sent); no client sees it.
TEST(ProxyConnect, MetaFromTheTokenOrTheConnectHookReachesTheHooks) {
  Backend backend;
  const std::string secret = "test-secret-of-thirty-two-bytes!";
  Daemon d(
      connect_flags(backend, {"--auth.hmac_secret", secret, "--proxy.rpc_url", backend.rpc_url()}));
  gateway::auth::Claims claims;
  claims.user = "tok";
  claims.meta_json = R"({"tenant":"t1","plan":["pro"]})";
  auto connect_cmd_with = [&secret](const gateway::auth::Claims& c) {
    return R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(c, secret) + R"("}})";
  };
  auto by_token = open_with(d, {});
  auto r = request(*by_token, 1, connect_cmd_with(claims));
  EXPECT_EQ(json_str(r.value_or(""), "/result/user"), "tok") << r.value_or("");
  EXPECT_FALSE(json_has(r.value_or(""), "/result/meta")) << r.value_or("");
  auto sent = request(*by_token, 2, R"({"id":2,"rpc":{"method":"request","data":{}}})");
  EXPECT_EQ(json_raw(sent.value_or(""), "/result/data/meta"), claims.meta_json)
      << sent.value_or("");
  EXPECT_EQ(json_str(sent.value_or(""), "/result/data/user"), "tok");

  auto by_cookie = open_with(d, {{"Cookie", "session=carl"}});
  (void)connect(*by_cookie, 1);
  sent = request(*by_cookie, 2, R"({"id":2,"rpc":{"method":"request"}})");
  EXPECT_EQ(json_raw(sent.value_or(""), "/result/data/meta"), R"({"session":"carl"})")
      << sent.value_or("");

  // A connection without meta sends none.
  claims.meta_json.clear();
  auto plain = open_with(d, {});
  (void)request(*plain, 1, connect_cmd_with(claims));
  sent = request(*plain, 2, R"({"id":2,"rpc":{"method":"request"}})");
  EXPECT_FALSE(json_has(sent.value_or(""), "/result/data/meta")) << sent.value_or("");
}

// Waits until the backend has had `n` refresh requests for `user`.
bool wait_refreshes(const Backend& b, const std::string& user, std::uint64_t n) {
  for (int i = 0; i < 300; ++i) {
    if (json_uint(http_get("127.0.0.1", b.port, "/stats").body, "/refreshes/" + user).value_or(0) >=
        n) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

struct Refresh : ::testing::Test {
  Backend backend;
  Daemon d{connect_flags(backend, {"--proxy.refresh_url", backend.url("refresh")})};

  // Connected by cookie as `user`, expiring in one to two seconds (whole
  // seconds: one more could be past already when a loaded machine reads it).
  std::unique_ptr<WsClient> brief(const std::string& user) {
    auto c = open_with(d, {{"Cookie", "session=" + user}});
    auto r = connect(*c, 1, R"({"expire_at":)" + std::to_string(now_s() + 2) + "}");
    EXPECT_EQ(json_str(r, "/result/user"), user) << r;
    return c;
  }
};

TEST_F(Refresh, TheBackendExtendsTheConnectionAgainAndAgain) {
  auto c = brief("renew");
  ASSERT_TRUE(wait_refreshes(backend, "renew", 3));
  EXPECT_FALSE(c->closed());
  expect_alive(*c, 2);
}

TEST_F(Refresh, ExpiredRefusedOrKickedEndsTheConnection) {
  auto expired = brief("expire");
  auto refused = brief("refuse");
  auto kicked = brief("kick");
  EXPECT_EQ(expired->wait_closed(std::chrono::seconds(30)).value_or(CloseInfo{}).code, 3003);
  EXPECT_EQ(refused->wait_closed(std::chrono::seconds(30)).value_or(CloseInfo{}).code, 3003);
  auto k = kicked->wait_closed(std::chrono::seconds(30));
  ASSERT_TRUE(k);
  EXPECT_EQ(k->code, 4409);
  EXPECT_EQ(k->reason, "session revoked");
}

TEST_F(Refresh, AFailingBackendIsAskedAgainAndTheClientStays) {
  auto c = brief("flaky");
  ASSERT_TRUE(wait_refreshes(backend, "flaky", 2));  // HTTP 500, then extended
  EXPECT_EQ(proxy_errors(d, "refresh", "bad_status"), 1);
  EXPECT_FALSE(c->closed());
  expect_alive(*c, 2);
}

TEST_F(Refresh, ATokensExpiryIsRefreshedToo) {
  const std::string secret = "test-secret-of-thirty-two-bytes!";
  Daemon tokens({"--auth.hmac_secret", secret, "--proxy.refresh_url", backend.url("refresh")});
  gateway::auth::Claims claims;
  claims.user = "renew-token";
  claims.expires_at = now_s() + 2;  // as in brief()
  auto c = std::make_unique<WsClient>("127.0.0.1", tokens.port, "/ws", "",
                                      WsClient::Headers{{"Cookie", "session=renew-token"}});
  auto r = request(
      *c, 1,
      R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(claims, secret) + "\"}}");
  ASSERT_TRUE(r && json_has(*r, "/result/expires")) << r.value_or("");
  ASSERT_TRUE(wait_refreshes(backend, "renew-token", 2));
  expect_alive(*c, 2);
}

TEST(TokenSubs, TheSubsClaimSubscribesAtConnect) {
  const std::string secret = "test-secret-of-thirty-two-bytes!";
  Daemon d({"--auth.hmac_secret", secret});
  gateway::auth::Claims claims;
  claims.user = "ann";
  claims.subs = {"news:today", "chat:x"};
  auto c = std::make_unique<WsClient>("127.0.0.1", d.port);
  auto r = request(
      *c, 1,
      R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(claims, secret) + "\"}}");
  ASSERT_TRUE(r);
  EXPECT_TRUE(json_has(*r, "/result/subs/news:today/epoch")) << *r;
  EXPECT_TRUE(json_has(*r, "/result/subs/chat:x/epoch")) << *r;
  // A subs claim naming an invalid room is a bad token.
  gateway::auth::Claims bad;
  bad.user = "ann";
  bad.subs = {"no spaces"};
  WsClient other("127.0.0.1", d.port);
  auto refused =
      request(other, 1,
              R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(bad, secret) + "\"}}");
  EXPECT_EQ(json_uint(refused.value_or(""), "/error/code"), 101u) << refused.value_or("");
}

}  // namespace
}  // namespace herald::test
