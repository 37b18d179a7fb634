// Bad input and limits: each gets its documented error or close code, and
// every other connection keeps working.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <map>
#include <thread>

#include "gateway/auth/token.hpp"
#include "support/eventually.hpp"
#include "support/http_client.hpp"
#include "support/rsa.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A connection on `port` that sent connect with `token`, and the reply.
std::pair<std::unique_ptr<WsClient>, std::string> connect_with_token(std::uint16_t port,
                                                                     const std::string& token) {
  auto ws = std::make_unique<WsClient>("127.0.0.1", port);
  auto r = request(*ws, 1, R"({"id":1,"connect":{"token":")" + token + "\"}}");
  return {std::move(ws), r.value_or("")};
}

TEST(GatewayLimits, MalformedFramesCloseOnlyTheirConnection) {
  Daemon d({"--client.max_message_bytes", "1KiB"});
  auto bystander = connect_as(d.port, "by");

  auto bad_json = connect_as(d.port, "a");
  bad_json->send("{\"id\":2,\"ping\":");
  auto m = bad_json->next();
  EXPECT_EQ(m, R"({"disconnect":{"code":3500,"reason":"bad request","reconnect":false}})");
  auto closed = bad_json->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 3500);

  auto too_big = connect_as(d.port, "b");
  too_big->send(R"({"id":2,"publish":{"room":"r","data":")" + std::string(2000, 'x') + "\"}}");
  closed = too_big->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1009) << closed->reason;  // RFC 6455 "message too big"

  auto no_id = connect_as(d.port, "c");
  no_id->send(R"({"ping":{}})");
  closed = no_id->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 3500);

  expect_alive(*bystander, 9);
}

TEST(GatewayLimits, CommandErrorsKeepTheConnection) {
  Daemon d;
  auto c = connect_as(d.port, "u");
  struct Case {
    std::string cmd;
    std::uint64_t code;
  };
  const Case cases[] = {
      {R"({"id":2,"frobnicate":{}})", 104},
      {R"({"id":3,"subscribe":{"room":7}})", 107},
      {R"({"id":4,"subscribe":{"room":"bad room"}})", 102},
      {R"({"id":5,"unsubscribe":{"room":"never"}})", 110},
      {R"({"id":6,"publish":{"room":"r"}})", 107},
  };
  for (const auto& cs : cases) {
    auto id = json_uint(cs.cmd, "/id").value();
    auto r = request(*c, static_cast<std::uint32_t>(id), cs.cmd);
    ASSERT_TRUE(r) << cs.cmd;
    EXPECT_EQ(json_uint(*r, "/error/code"), cs.code) << *r;
    EXPECT_TRUE(json_str(*r, "/error/message")) << *r;
  }
  subscribe(*c, 7, "r");
  auto dup = request(*c, 8, R"({"id":8,"subscribe":{"room":"r"}})");
  EXPECT_EQ(json_uint(dup.value_or(""), "/error/code"), 105u);
  expect_alive(*c, 9);
}

TEST(GatewayLimits, TokensAreVerified) {
  const std::string secret = "test-secret-of-thirty-two-bytes!";
  Daemon d({"--auth.hmac_secret", secret});
  auto bystander = std::make_unique<WsClient>("127.0.0.1", d.port);
  gateway::auth::Claims ok;
  ok.user = "carol";
  ok.rooms = std::vector<std::string>{"chat:*"};
  auto r =
      request(*bystander, 1,
              R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(ok, secret) + "\"}}");
  ASSERT_TRUE(r);
  EXPECT_EQ(json_str(*r, "/result/user"), "carol");
  // The token's rooms claim is enforced.
  auto denied = request(*bystander, 2, R"({"id":2,"subscribe":{"room":"secret:x"}})");
  EXPECT_EQ(json_uint(denied.value_or(""), "/error/code"), 103u);
  EXPECT_TRUE(json_has(subscribe(*bystander, 3, "chat:x"), "/result/epoch"));

  // Dev mode is off with a secret: a bare user is refused.
  WsClient anon("127.0.0.1", d.port);
  auto refused = request(anon, 1, R"({"id":1,"connect":{"user":"mallory"}})");
  EXPECT_EQ(json_uint(refused.value_or(""), "/error/code"), 101u);
  EXPECT_EQ(anon.wait_closed().value_or(CloseInfo{}).code, 3501);

  WsClient forged("127.0.0.1", d.port);
  request(forged, 1,
          R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(ok, "wrong") + "\"}}");
  EXPECT_EQ(forged.wait_closed().value_or(CloseInfo{}).code, 3501);

  gateway::auth::Claims old = ok;
  old.expires_at = unix_now() - 10;
  WsClient expired("127.0.0.1", d.port);
  auto er =
      request(expired, 1,
              R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(old, secret) + "\"}}");
  EXPECT_EQ(json_uint(er.value_or(""), "/error/code"), 109u);
  EXPECT_EQ(expired.wait_closed().value_or(CloseInfo{}).code, 3003);

  // An exp in the year 9999 (a common "never") connects and stays: its
  // expiry timer once overflowed steady_clock's nanoseconds (undefined
  // behaviour, seen as an immediate 3003 and a reconnect loop). It connects
  // first; the brief token below expires after it, so by the time that one
  // is closed, an overflowed timer armed earlier would have fired.
  gateway::auth::Claims never = ok;
  never.expires_at = 253402300799;
  WsClient forever("127.0.0.1", d.port);
  auto fr = request(
      forever, 1,
      R"({"id":1,"connect":{"token":")" + gateway::auth::sign_hs256(never, secret) + "\"}}");
  EXPECT_EQ(json_uint(fr.value_or(""), "/result/expires"), 253402300799u) << fr.value_or("");

  // A token that expires while connected: the server closes with 3003. The
  // token must still be valid when the server reads the connect; a machine
  // too slow for that gets 109 (expired) instead, and the next try signs a
  // token that lives twice as long. exp counts whole seconds.
  std::unique_ptr<WsClient> soon;
  std::string soon_reply;
  std::int64_t lifetime = 2;
  for (;; lifetime *= 2) {
    gateway::auth::Claims brief = ok;
    brief.expires_at = unix_now() + lifetime;
    soon = std::make_unique<WsClient>("127.0.0.1", d.port);
    soon_reply = request(*soon, 1,
                         R"({"id":1,"connect":{"token":")" +
                             gateway::auth::sign_hs256(brief, secret) + "\"}}")
                     .value_or("");
    if (json_has(soon_reply, "/result") || lifetime >= 64) break;
  }
  ASSERT_TRUE(json_has(soon_reply, "/result")) << soon_reply;
  auto soon_closed = soon->wait_closed(std::chrono::seconds(lifetime + 30));
  ASSERT_TRUE(soon_closed) << "a token that expired left its connection open";
  EXPECT_EQ(soon_closed->code, 3003);

  expect_alive(forever, 2);
  EXPECT_FALSE(forever.closed()) << "closed with " << forever.closed()->code;

  expect_alive(*bystander, 10);
}

TEST(GatewayLimits, TokensForAnotherAudienceOrIssuerAreRefused) {
  // A key shared with another service (or one identity provider for many):
  // its tokens verify, but only those naming this server may connect.
  const std::string secret = "0123456789abcdef0123456789abcdef";
  Daemon d({"--auth.hmac_secret", secret, "--auth.audience", "herald", "--auth.issuer",
            "https://id.example"});
  auto connect_with = [&](const gateway::auth::Claims& c) {
    return connect_with_token(d.port, gateway::auth::sign_hs256(c, secret));
  };
  gateway::auth::Claims ok;
  ok.user = "carol";
  ok.issuer = "https://id.example";
  ok.audience = {"billing", "herald"};
  auto [good, good_reply] = connect_with(ok);
  EXPECT_EQ(json_str(good_reply, "/result/user"), "carol") << good_reply;

  gateway::auth::Claims other_service = ok;
  other_service.audience = {"billing"};
  gateway::auth::Claims no_audience = ok;
  no_audience.audience.clear();
  gateway::auth::Claims other_issuer = ok;
  other_issuer.issuer = "https://evil.example";
  for (const auto& bad : {other_service, no_audience, other_issuer}) {
    auto [ws, reply] = connect_with(bad);
    EXPECT_EQ(json_uint(reply, "/error/code"), 101u) << reply;
    EXPECT_EQ(ws->wait_closed().value_or(CloseInfo{}).code, 3501);
  }
  expect_alive(*good, 2);
}

// Centrifugo's issuer_regex and audience_regex (one identity provider with
// an issuer per tenant): a token's iss and aud must match; a pattern that
// does not compile, or one set beside its exact twin, stops heraldd at
// start naming the option.
TEST(GatewayLimits, IssuerAndAudiencePatternsAdmitTheirTenantsOnly) {
  const std::string secret = "0123456789abcdef0123456789abcdef";
  Daemon d({"--auth.hmac_secret", secret, "--auth.audience_regex", "^herald(-[a-z]+)?$",
            "--auth.issuer_regex", R"(^https://idp\.example/(?P<tenant>[a-z0-9]+)$)"});
  auto connect_with = [&](const gateway::auth::Claims& c) {
    return connect_with_token(d.port, gateway::auth::sign_hs256(c, secret));
  };
  gateway::auth::Claims ok;
  ok.user = "carol";
  ok.issuer = "https://idp.example/acme";
  ok.audience = {"herald-eu"};
  auto [good, good_reply] = connect_with(ok);
  EXPECT_EQ(json_str(good_reply, "/result/user"), "carol") << good_reply;
  gateway::auth::Claims other_tenant_path = ok;
  other_tenant_path.issuer = "https://idp.example/acme/../evil";
  gateway::auth::Claims other_audience = ok;
  other_audience.audience = {"herald-eu-staging"};
  for (const auto& bad : {other_tenant_path, other_audience}) {
    auto [ws, reply] = connect_with(bad);
    EXPECT_EQ(json_uint(reply, "/error/code"), 101u) << reply;
    EXPECT_EQ(ws->wait_closed().value_or(CloseInfo{}).code, 3501);
  }
  expect_alive(*good, 2);

  auto broken = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.hmac_secret", secret,
                     "--auth.issuer_regex", "^(https"});
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  EXPECT_THAT(broken.output, HasSubstr("auth.issuer_regex: '^(https' is not a pattern"));
  EXPECT_THAT(broken.output, HasSubstr("at offset 7"));
  auto both = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.hmac_secret", secret,
                   "--auth.audience", "herald", "--auth.audience_regex", "^herald"});
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_THAT(both.output, HasSubstr("auth.audience_regex and auth.audience are both set"));
}

TEST(GatewayLimits, WeakTokenKeysStopTheServer) {
  // An HS256 secret under 32 bytes can be brute-forced from one token.
  auto short_secret =
      run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.hmac_secret", "test-secret"});
  EXPECT_EQ(short_secret.exit_code, 2) << short_secret.output;
  EXPECT_THAT(short_secret.output, HasSubstr("auth.hmac_secret is 11 bytes"));
  EXPECT_THAT(short_secret.output, HasSubstr("openssl rand -hex 32"));
  // An RSA key under 2048 bits can be factored.
  auto [priv, pub] = rsa_key_pair(1024);
  auto small_key = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0",
                        "--auth.rsa_public_key_file", write_temp_file("rsa1024.pem", pub)});
  EXPECT_EQ(small_key.exit_code, 2) << small_key.output;
  EXPECT_THAT(small_key.output, HasSubstr("auth.rsa_public_key_file"));
  EXPECT_THAT(small_key.output, HasSubstr("1024-bit"));
}

TEST(GatewayLimits, Rs256TokensFromAPublicKeyFile) {
  auto [priv, pub] = rsa_key_pair();
  std::string key_file = write_temp_file("rs256.pem", pub);
  Daemon d({"--auth.rsa_public_key_file", key_file});
  gateway::auth::Claims c;
  c.user = "erin";
  WsClient ws("127.0.0.1", d.port);
  auto r = request(ws, 1,
                   R"({"id":1,"connect":{"token":")" + gateway::auth::sign_rs256(c, priv) + "\"}}");
  EXPECT_EQ(json_str(r.value_or(""), "/result/user"), "erin");
  // A key file that is not a public key stops heraldd at start, exit 2.
  auto bad = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.rsa_public_key_file",
                  write_temp_file("not-a-key.pem", "hello")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.output, HasSubstr("auth.rsa_public_key_file"));
  // So does an RSA key given as the ECDSA one, naming that option.
  auto not_ec = run(
      {HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.ecdsa_public_key_file", key_file});
  EXPECT_EQ(not_ec.exit_code, 2);
  EXPECT_THAT(not_ec.output, HasSubstr("auth.ecdsa_public_key_file"));
  EXPECT_THAT(not_ec.output, HasSubstr("P-256 or P-384"));
}

// Subscription tokens' own keys (auth.subscription_*) are checked at start
// as the connection tokens' are, each refusal naming its own option.
TEST(GatewayLimits, SubscriptionTokenKeysAreCheckedAtStartUnderTheirOwnNames) {
  auto short_secret = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.hmac_secret",
                           std::string(32, 'c'), "--auth.subscription_hmac_secret", "short"});
  EXPECT_EQ(short_secret.exit_code, 2);
  EXPECT_THAT(short_secret.output, HasSubstr("auth.subscription_hmac_secret is 5 bytes"));
  auto not_a_key = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0",
                        "--auth.subscription_rsa_public_key_file",
                        write_temp_file("sub-not-a-key.pem", "hello")});
  EXPECT_EQ(not_a_key.exit_code, 2);
  EXPECT_THAT(not_a_key.output, HasSubstr("auth.subscription_rsa_public_key_file: '"));
}

// A JWK set that cannot be used stops heraldd at start (exit 2), naming
// the option, the file and the key; one it can is the only key needed (no
// dev mode).
TEST(GatewayLimits, AJwksFileThatCannotBeUsedStopsStartUp) {
  const std::string broken = write_temp_file(
      "broken.jwks", R"({"keys":[{"kty":"RSA","kid":"k1","n":"AQAB","e":"AQAB"}]})");
  auto bad = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.jwks_file", broken});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.output, HasSubstr("auth.jwks_file: '" + broken + "': keys[0] (kid 'k1')"));
  auto missing = run(
      {HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.jwks_file", broken + ".nowhere"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.output, HasSubstr("auth.jwks_file: cannot read"));

  const std::string only_oct =
      write_temp_file("oct.jwks", R"({"keys":[{"kty":"oct","kid":"s","k":"c2VjcmV0"}]})");
  auto none = run({HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--auth.jwks_file", only_oct});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.output, HasSubstr("no RSA or EC signing key"));
}

TEST(GatewayLimits, ConnectTimeout) {
  Daemon d({"--client.connect_timeout", "300ms"});
  WsClient idle("127.0.0.1", d.port);
  auto m = idle.next(30s);  // a bound: the message comes after 300 ms
  EXPECT_EQ(m, R"({"disconnect":{"code":3004,"reason":"connect timeout","reconnect":true}})");
  EXPECT_EQ(idle.wait_closed().value_or(CloseInfo{}).code, 3004);
}

TEST(GatewayLimits, CloseHandshakeIsBoundedByHandshakeTimeout) {
  // A raw client upgrades, then never reads or writes again. The connect
  // timeout makes the server send a close frame; the client never answers
  // it, and client.handshake_timeout bounds how long the server waits for
  // that answer before it drops the connection. (Without it, the idle
  // timeout, an hour here, would hold the connection far past the 30 s this
  // test waits for the server to hang up.) The client reads, which answers
  // nothing: it sees the upgrade, the disconnect and the close frame, then
  // the end of the stream, in that order, however long each took.
  Daemon d({"--client.connect_timeout", "200ms", "--client.handshake_timeout", "500ms",
            "--client.idle_timeout", "1h"});
  const std::string upgrade =
      "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  auto got = raw_exchange_until_close("127.0.0.1", d.port, upgrade, 30s);
  EXPECT_THAT(got.bytes, ::testing::StartsWith("HTTP/1.1 101 Switching Protocols"));
  EXPECT_THAT(got.bytes, HasSubstr(R"({"disconnect":{"code":3004,"reason":"connect timeout")"));
  EXPECT_TRUE(got.closed_by_server) << "the server still holds a client that never closed";
  EXPECT_TRUE(eventually([&] {
    return metric_value(http_get("127.0.0.1", d.port, "/metrics").body, "herald_ws_connections") ==
           0;
  }));
}

TEST(GatewayLimits, PerConnectionAndPerRoomLimits) {
  std::string conf = write_temp_file("limits.toml", R"(
[client]
max_subscriptions = 2
publish_rate = 3

[namespaces.ro]
publish = false

[namespaces.small]
max_subscribers = 1
max_publication_bytes = 16
history_size = 0
presence = false
)");
  Daemon d({"--config", conf});
  auto c = connect_as(d.port, "u");
  subscribe(*c, 2, "a");
  subscribe(*c, 3, "small:x");
  auto third = request(*c, 4, R"({"id":4,"subscribe":{"room":"c"}})");
  EXPECT_EQ(json_uint(third.value_or(""), "/error/code"), 106u);
  EXPECT_THAT(third.value_or(""), HasSubstr("client.max_subscriptions"));

  auto other = connect_as(d.port, "v");
  auto full = request(*other, 2, R"({"id":2,"subscribe":{"room":"small:x"}})");
  EXPECT_EQ(json_uint(full.value_or(""), "/error/code"), 106u);
  EXPECT_THAT(full.value_or(""), HasSubstr("room is full"));

  auto ro = request(*other, 3, R"({"id":3,"publish":{"room":"ro:x","data":1}})");
  EXPECT_EQ(json_uint(ro.value_or(""), "/error/code"), 103u);
  auto big =
      request(*other, 4, R"({"id":4,"publish":{"room":"small:y","data":"0123456789abcdef"}})");
  EXPECT_EQ(json_uint(big.value_or(""), "/error/code"), 106u);
  auto hist = request(*other, 5, R"({"id":5,"history":{"room":"small:y"}})");
  EXPECT_EQ(json_uint(hist.value_or(""), "/error/code"), 108u);
  auto pres = request(*other, 6, R"({"id":6,"presence":{"room":"small:y"}})");
  EXPECT_EQ(json_uint(pres.value_or(""), "/error/code"), 108u);

  // Rate: a burst of 3, then 111 until the bucket refills. A new
  // connection's bucket is full, so the first 3 of 6 publishes in one frame
  // pass. At 3/s a token comes back every 1/3 s: the other 3 all get 111
  // when the server took less than that over the 6, and otherwise at most
  // one more passes per third of a second. The server's time from the first
  // publish to the last lies inside the client's, from sending to the last
  // reply, so a slow machine loosens the bound instead of breaking the test.
  auto rated = connect_as(d.port, "w");
  std::string burst;
  for (int i = 0; i < 6; ++i)
    burst += R"({"id":)" + std::to_string(20 + i) + R"(,"publish":{"room":"a","data":1}})" + "\n";
  const auto sent_at = std::chrono::steady_clock::now();
  rated->send(burst);
  std::map<std::uint64_t, std::string> replies;
  for (int i = 0; i < 6; ++i) {
    auto m = rated->next(30s);
    ASSERT_TRUE(m);
    replies[json_uint(*m, "/id").value_or(0)] = *m;
  }
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_at).count();
  int accepted = 0, limited = 0;
  for (const auto& [id, m] : replies) {
    if (json_has(m, "/result/offset")) ++accepted;
    if (json_uint(m, "/error/code") == 111u) {
      ++limited;
      EXPECT_THAT(m, HasSubstr("client.publish_rate (3/s, burst 3)"));
    }
  }
  for (std::uint64_t id : {20, 21, 22}) EXPECT_TRUE(json_has(replies[id], "/result/offset")) << id;
  EXPECT_EQ(accepted + limited, 6);
  // Safety: a small positive count of seconds, rounded down to whole tokens.
  const int refills = static_cast<int>(took_s * 3);
  EXPECT_LE(accepted, 3 + refills) << "in " << took_s << " s";
}

TEST(GatewayLimits, HistoryExpiresAfterItsTtl) {
  const auto ttl = 2s;
  Daemon d({"--rooms.history_ttl", "2s"});
  auto c = connect_as(d.port, "u");
  std::uint32_t id = 2;
  auto history = [&](const std::string& room) {
    const std::uint32_t i = id++;
    return request(*c, i,
                   R"({"id":)" + std::to_string(i) + R"(,"history":{"room":")" + room + "\"}}")
        .value_or("");
  };
  // Fresh, both are there. That is certain only when the history reply came
  // within the TTL of the first publish (the server's clock runs inside the
  // client's span): a slower try is made again in a new room.
  std::string room, epoch;
  bool fresh_seen = false;
  for (int attempt = 0; attempt < 10 && !fresh_seen; ++attempt) {
    room = "t" + std::to_string(attempt);
    const auto start = std::chrono::steady_clock::now();
    epoch = json_str(publish(*c, id++, room, "1"), "/result/epoch").value_or("");
    publish(*c, id++, room, "2");
    auto fresh = history(room);
    if (std::chrono::steady_clock::now() - start >= ttl) continue;
    fresh_seen = true;
    EXPECT_EQ(json_size(fresh, "/result/publications"), 2u) << fresh;
  }
  ASSERT_TRUE(fresh_seen) << "no try answered within the TTL";
  // Past the TTL, the history is empty.
  std::string old;
  EXPECT_TRUE(eventually([&] {
    old = history(room);
    return json_size(old, "/result/publications") == 0u;
  })) << old;
  auto other = connect_as(d.port, "v");
  auto r = subscribe(*other, 2, room, R"({"epoch":")" + epoch + R"(","offset":0})");
  EXPECT_EQ(json_bool(r, "/result/recovered"), false) << r;
}

TEST(GatewayLimits, SilentClientIsClosedAfterIdleTimeout) {
  // The server pings a client silent for half the timeout and closes it if
  // nothing came back by the end: `reader` has a second to answer, even on
  // a loaded machine.
  Daemon d({"--client.idle_timeout", "2s"});
  auto reader = connect_as(d.port, "reader");  // keeps reading: answers pings
  auto silent = connect_as(d.port, "silent");  // reads nothing: never pongs
  // Until the server has dropped one of the two, `reader` waits in short
  // reads (answering the server's pings) while `silent` does nothing.
  auto one_dropped = [&] {
    EXPECT_FALSE(reader->next(100ms)) << "nothing to read";
    return metric_value(http_get("127.0.0.1", d.port, "/metrics").body, "herald_ws_connections") ==
           1;
  };
  EXPECT_TRUE(eventually(one_dropped)) << "the silent client was never dropped";
  EXPECT_FALSE(reader->closed());
  expect_alive(*reader, 7);
  // The one dropped was the silent one.
  EXPECT_TRUE(silent->wait_closed());
}

TEST(GatewayLimits, SlowConsumerIsCutOthersKeepEverything) {
  // The queue bound must hold a burst (one frame of publishes lands in every
  // subscriber's queue in one loop turn), so it is larger than a batch.
  Daemon d({"--client.max_queue_bytes", "2MiB", "--client.publish_rate", "100000",
            "--client.max_message_bytes", "4MiB", "--rooms.max_publication_bytes", "64KiB"});
  auto slow = connect_as(d.port, "slow");
  auto fast = connect_as(d.port, "fast");
  auto pub = connect_as(d.port, "pub");
  subscribe(*slow, 2, "firehose");
  subscribe(*fast, 2, "firehose");
  const int kMessages = 2000;  // 20 MB: far more than `slow`'s socket buffers hold
  const int kBatch = 20;
  const std::string payload = "\"" + std::string(10'000, 'x') + "\"";
  // The fast reader drains on its own thread; `slow` reads nothing.
  std::atomic<int> received{0};
  std::thread reader([&] {
    std::uint64_t expect = 1;
    while (received < kMessages) {
      auto m = fast->next(30s);
      if (!m) break;
      if (!json_has(*m, "/pub")) continue;
      EXPECT_EQ(json_uint(*m, "/pub/offset"), expect) << "gap or duplicate";
      ++expect;
      ++received;
    }
  });
  for (int sent = 0; sent < kMessages; sent += kBatch) {
    // Pace the publisher to the fast reader (at most 100 messages ahead), so
    // only the reader that stopped falls behind.
    if (!eventually([&] { return sent - received <= 100; }, 30s, 5ms)) {
      ADD_FAILURE() << "the fast reader stopped at " << received;
      break;
    }
    std::string frame;
    for (int i = 0; i < kBatch; ++i)
      frame += R"({"id":)" + std::to_string(1000 + sent + i) +
               R"(,"publish":{"room":"firehose","data":)" + payload + "}}\n";
    pub->send(frame);
  }
  reader.join();
  EXPECT_EQ(received, kMessages) << d.proc->output();
  // The slow one finds, after whatever was already in its socket, a close
  // with 3002: reconnect and recover.
  auto closed = slow->wait_closed(20s);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 3002);
  EXPECT_THAT(d.proc->output(), HasSubstr("slow consumer disconnected"));
  EXPECT_THAT(d.proc->output(), ::testing::Not(HasSubstr("user=fast")));
}

}  // namespace
}  // namespace herald::test
