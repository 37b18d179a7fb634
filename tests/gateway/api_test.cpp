// The HTTP server API against heraldd as a real process.
#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

std::string post(std::uint16_t port, const std::string& path, const std::string& body,
                 const std::string& key = "k3y") {
  std::string req =
      "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
      (key.empty() ? "" : "Authorization: apikey " + key + "\r\n") +
      "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body;
  return raw_exchange("127.0.0.1", port, req);
}

std::string body_of(const std::string& reply) {
  auto p = reply.find("\r\n\r\n");
  return p == std::string::npos ? "" : reply.substr(p + 4);
}

TEST(GatewayApi, PublishBroadcastHistoryPresenceDisconnect) {
  Daemon d({"--api.key", "k3y"});
  auto sub = connect_as(d.port, "alice");
  subscribe(*sub, 2, "news");
  subscribe(*sub, 3, "alerts");

  std::string r = post(d.port, "/api/publish", R"({"room":"news","data":{"title":"hello"}})");
  EXPECT_THAT(r, HasSubstr("200 OK"));
  EXPECT_EQ(json_uint(body_of(r), "/result/offset"), 1u);
  auto m = sub->next();
  ASSERT_TRUE(m);
  EXPECT_EQ(json_raw(*m, "/pub/data"), R"({"title":"hello"})");
  EXPECT_FALSE(json_has(*m, "/pub/info"));  // the API publishes as no client

  r = post(d.port, "/api/broadcast", R"({"rooms":["news","alerts"],"data":2})");
  EXPECT_EQ(json_size(body_of(r), "/result/responses"), 2u) << r;
  EXPECT_EQ(json_str(body_of(r), "/result/responses/1/room"), "alerts");
  EXPECT_TRUE(sub->next() && sub->next());

  r = post(d.port, "/api/history", R"({"room":"news","limit":10})");
  EXPECT_EQ(json_size(body_of(r), "/result/publications"), 2u) << r;

  r = post(d.port, "/api/presence", R"({"room":"news"})");
  EXPECT_EQ(json_str(body_of(r), "/result/clients/0/user"), "alice") << r;
  r = post(d.port, "/api/presence_stats", R"({"room":"news"})");
  EXPECT_EQ(json_uint(body_of(r), "/result/users"), 1u);

  r = post(d.port, "/api/disconnect", R"({"user":"alice"})");
  EXPECT_EQ(json_uint(body_of(r), "/result/disconnected"), 1u) << r;
  EXPECT_EQ(sub->wait_closed().value_or(CloseInfo{}).code, 3502);
}

TEST(GatewayApi, RefusesBadKeysAndBadBodies) {
  Daemon d({"--api.key", "k3y"});
  std::string r = post(d.port, "/api/publish", R"({"room":"x","data":1})", "wrong");
  EXPECT_THAT(r, HasSubstr("401 Unauthorized"));
  r = post(d.port, "/api/publish", R"({"room":"x","data":1})", "");
  EXPECT_THAT(r, HasSubstr("401 Unauthorized"));
  r = post(d.port, "/api/publish", R"({"room":"x","data":)");
  EXPECT_THAT(r, HasSubstr("400 Bad Request"));
  EXPECT_THAT(r, HasSubstr("body is not valid JSON"));
  r = post(d.port, "/api/publish", R"({"room":"bad room","data":1})");
  EXPECT_THAT(body_of(r), HasSubstr("room: room name has a character"));
  r = post(d.port, "/api/publish", R"({"room":"x"})");
  EXPECT_THAT(body_of(r), HasSubstr("data: expected a JSON value"));
  r = post(d.port, "/api/broadcast", R"({"rooms":"x","data":1})");
  EXPECT_THAT(body_of(r), HasSubstr("rooms: expected an array"));
  EXPECT_EQ(http_get("127.0.0.1", d.port, "/healthz").status, 200);
}

TEST(GatewayApi, OffWithoutAKeyOutsideDevMode) {
  Daemon d({"--auth.dev_mode", "off"});
  std::string r = post(d.port, "/api/publish", R"({"room":"x","data":1})", "");
  EXPECT_THAT(r, HasSubstr("403 Forbidden"));
  EXPECT_THAT(r, HasSubstr("set api.key"));
}

}  // namespace
}  // namespace herald::test
