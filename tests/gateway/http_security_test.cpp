// heraldd's browser-facing defences as a real process, each attacked the way
// a web page or a form would (docs/security.md): another site's WebSocket
// (cross-site WebSocket hijacking), DNS rebinding, a cross-site or form POST
// to the API (CSRF), framing and sniffing of the web app, and an open
// /metrics. Each attack is refused with a body that names the setting, and
// loses nothing: the dictionary an attack tried to flush still holds its
// keyword.
#include <regex>

#include "support/http_client.hpp"
#include "support/process.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSecret = "0123456789abcdef0123456789abcdef";  // 32 bytes

// A WebSocket upgrade as a page at `origin` sends it (Host: `host`, or the
// server's own address).
HttpReply upgrade(std::uint16_t port, const std::string& origin, std::string host = "") {
  if (host.empty()) host = "127.0.0.1:" + std::to_string(port);
  HttpCall call{"GET",
                "/ws",
                {{"Host", host},
                 {"Upgrade", "websocket"},
                 {"Connection", "Upgrade"},
                 {"Sec-WebSocket-Version", "13"},
                 {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}},
                {}};
  if (!origin.empty()) call.headers["Origin"] = origin;
  return http_request("127.0.0.1", port, call);
}

HttpReply post(std::uint16_t port, const std::string& target, const std::string& body,
               std::map<std::string, std::string> headers) {
  return http_request("127.0.0.1", port, HttpCall{"POST", target, std::move(headers), body});
}

const std::map<std::string, std::string> kJson{{"Content-Type", "application/json"}};

TEST(HttpSecurity, AnotherSitesWebSocketIsRefusedInDevMode) {
  Daemon d;  // the README's first run: dev mode on loopback
  HttpReply r = upgrade(d.port, "http://evil.example");
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("origin_not_allowed"));
  EXPECT_THAT(r.body, HasSubstr("server.allowed_origins"));
  EXPECT_THAT([&] { WsClient c("127.0.0.1", d.port, "/ws", "http://evil.example"); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("403")));
  // The pages that must keep working: the server's own web app, a local
  // dev server on another port, and a client that is no browser.
  for (const std::string& origin : {"http://127.0.0.1:" + std::to_string(d.port),
                                    std::string("http://localhost:5173"), std::string()}) {
    WsClient c("127.0.0.1", d.port, "/ws", origin);
    auto reply = request(c, 1, R"({"id":1,"connect":{"user":"alice"}})");
    EXPECT_TRUE(reply && json_has(*reply, "/result/client")) << origin;
  }
}

TEST(HttpSecurity, DnsRebindingIsRefusedInDevMode) {
  Daemon d;
  // evil.example re-pointed at 127.0.0.1: the page is same-origin with the
  // server, so its upgrade carries a matching Origin and its GETs none.
  const std::string host = "evil.example:" + std::to_string(d.port);
  HttpReply r = upgrade(d.port, "http://" + host, host);
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("host_not_allowed"));
  r = http_request("127.0.0.1", d.port,
                   HttpCall{"GET", "/api/keywords/demo", {{"Host", host}}, {}});
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("auth.dev_mode"));
  // Addressed by a loopback name it is served.
  r = http_request(
      "127.0.0.1", d.port,
      HttpCall{"GET", "/healthz", {{"Host", "localhost:" + std::to_string(d.port)}}, {}});
  EXPECT_EQ(r.status, 200);
}

TEST(HttpSecurity, ListedOriginsAndTheServersOwnWithATokenKey) {
  Daemon listed({"--server.allowed_origins", "http://app.example, https://chat.example"});
  EXPECT_EQ(upgrade(listed.port, "http://app.example").status, 101);
  EXPECT_EQ(upgrade(listed.port, "https://chat.example").status, 101);
  EXPECT_EQ(upgrade(listed.port, "http://evil.example").status, 403);

  // With a token key (no dev mode) only the server's own origin passes by
  // default: a loopback page on another port is another site.
  Daemon secure({"--auth.hmac_secret", kSecret});
  EXPECT_EQ(upgrade(secure.port, "http://127.0.0.1:" + std::to_string(secure.port)).status, 101);
  EXPECT_EQ(upgrade(secure.port, "http://localhost:5173").status, 403);
  // Not in dev mode, any Host is served: the deployment names itself.
  EXPECT_EQ(upgrade(secure.port, "https://chat.example", "chat.example").status, 101);
}

TEST(HttpSecurity, CrossSiteAndFormPostsToTheApiAreRefusedAndLoseNothing) {
  Daemon d;
  HttpReply r = post(d.port, "/api/keywords/demo/add",
                     R"({"keywords":[{"keyword":"heck","action":"mask"}]})", kJson);
  ASSERT_EQ(r.status, 200) << r.body;
  // Another site's page (its fetch sends Origin) ...
  auto evil = kJson;
  evil["Origin"] = "http://evil.example";
  r = post(d.port, "/api/keywords/demo/flush", "{}", evil);
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("origin_not_allowed"));
  // ... and a plain HTML form, whatever encoding it picks (a form may send
  // no Origin on old browsers).
  for (const char* type :
       {"application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"}) {
    r = post(d.port, "/api/keywords/demo/flush", "a=b", {{"Content-Type", type}});
    EXPECT_EQ(r.status, 415) << type;
    EXPECT_THAT(r.body, HasSubstr("Content-Type: application/json"));
  }
  r = post(d.port, "/api/keywords/demo/flush", "{}", {});  // a body with no type
  EXPECT_EQ(r.status, 415);
  // Nothing was flushed.
  r = http_get("127.0.0.1", d.port, "/api/keywords/demo");
  EXPECT_THAT(r.body, HasSubstr("heck"));
  // JSON (with a charset), or no body and no type, is served.
  r = post(d.port, "/api/keywords/demo/match", R"({"text":"oh heck"})",
           {{"Content-Type", "application/json; charset=utf-8"}});
  EXPECT_EQ(r.status, 200) << r.body;
  r = post(d.port, "/api/keywords/demo/flush", "", {});
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST(HttpSecurity, TheWebAppForbidsInlineScriptFramingAndSniffing) {
  Daemon d;
  HttpReply r = http_get("127.0.0.1", d.port, "/");
  ASSERT_EQ(r.status, 200);
  const std::string csp = r.headers["content-security-policy"];
  EXPECT_THAT(csp, HasSubstr("script-src 'self'"));
  EXPECT_THAT(csp, HasSubstr("frame-ancestors 'none'"));
  EXPECT_THAT(csp, Not(HasSubstr("unsafe-inline")));
  EXPECT_EQ(r.headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(r.headers["x-frame-options"], "DENY");
  // Every response, errors included, says its type is what it is.
  r = http_get("127.0.0.1", d.port, "/no-such-page");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.headers["x-content-type-options"], "nosniff");
}

TEST(HttpSecurity, MetricsCanRequireTheApiKey) {
  Daemon open;
  EXPECT_EQ(http_get("127.0.0.1", open.port, "/metrics").status, 200);  // the default

  Daemon d({"--api.key", "k3y", "--metrics.require_key", "true"});
  HttpReply r = http_get("127.0.0.1", d.port, "/metrics");
  EXPECT_EQ(r.status, 401);
  r = http_request("127.0.0.1", d.port,
                   HttpCall{"GET", "/metrics", {{"Authorization", "apikey k3y"}}, {}});
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body, HasSubstr("herald_connections"));

  // Asked for with no key to ask for: heraldd does not start.
  ChildProcess bad(
      {HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--metrics.require_key", "true"});
  EXPECT_EQ(bad.wait_exit(10s), 2);
  EXPECT_THAT(bad.output(), HasSubstr("api.key"));
}

TEST(HttpSecurity, DevModeIsAnnouncedAtStartUp) {
  Daemon dev;
  EXPECT_THAT(dev.proc->output(), HasSubstr("dev mode is on"));
  Daemon secure({"--auth.hmac_secret", kSecret});
  EXPECT_THAT(secure.proc->output(), Not(HasSubstr("dev mode is on")));
}

TEST(HttpSecurity, AnAllowedOriginThatIsNoOriginStopsStartUp) {
  ChildProcess bad({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--server.allowed_origins",
                    "chat.example.com"});
  EXPECT_EQ(bad.wait_exit(10s), 2);
  EXPECT_THAT(bad.output(), HasSubstr("server.allowed_origins"));
  EXPECT_THAT(bad.output(), HasSubstr("chat.example.com"));
}

// Keep-alive: requests on one connection are all answered (a request read
// whole used to leave the connection closing after its response).
TEST(HttpSecurity, KeepAliveAnswersEveryPipelinedRequest) {
  Daemon d;
  const std::string one = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string last = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  const std::string reply = raw_exchange("127.0.0.1", d.port, one + one + last);
  std::size_t answers = 0;
  for (std::size_t at = reply.find("HTTP/1.1 200"); at != std::string::npos;
       at = reply.find("HTTP/1.1 200", at + 1))
    ++answers;
  EXPECT_EQ(answers, 3u) << reply;
}

}  // namespace
}  // namespace herald::test
