// What a publish's idempotency_key promises (Centrifugo's), checked the
// same way against either broker (the embedded one in api_test.cpp, Redis
// in cluster_test.cpp): a retry with the same key in the same room is
// answered with the first publication's position and delivers nothing;
// another key, or another room of a broadcast, publishes.
#pragma once

#include <string>

#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {

// `first_port` and `retry_port` serve the API (key "k3y"), `ws_port` the
// subscriber; in a cluster they may be three nodes. `room` is fresh.
inline void expect_idempotent_publishes(std::uint16_t first_port, std::uint16_t retry_port,
                                        std::uint16_t ws_port, const std::string& room) {
  auto api = [](std::uint16_t port, const std::string& method, const std::string& body) {
    return api_post(port, "/api/" + method, body, "k3y");
  };
  auto sub = connect_as(ws_port, "watcher");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, room), "/result"));
  auto other = room + ":2";
  ASSERT_TRUE(json_has(subscribe(*sub, 3, other), "/result"));
  auto next_pub = [&sub] { return herald::test::next_pub(*sub).value_or(""); };

  const std::string named = R"({"channel":")" + room + "\"";
  HttpReply first = api(first_port, "publish", named + R"(,"data":1,"idempotency_key":"k1"})");
  ASSERT_EQ(first.status, 200) << first.body;
  const auto offset = json_uint(first.body, "/result/offset");
  EXPECT_EQ(json_uint(next_pub(), "/pub/offset"), offset);
  // The retry, with other data even: the first one's position, nothing sent.
  HttpReply retry = api(retry_port, "publish", named + R"(,"data":2,"idempotency_key":"k1"})");
  EXPECT_EQ(retry.status, 200) << retry.body;
  EXPECT_EQ(json_raw(retry.body, "/result"), json_raw(first.body, "/result")) << retry.body;
  // Another key publishes; it is the next thing the subscriber sees.
  HttpReply another = api(retry_port, "publish", named + R"(,"data":3,"idempotency_key":"k2"})");
  EXPECT_EQ(json_uint(another.body, "/result/offset"), *offset + 1) << another.body;
  const std::string m = next_pub();
  EXPECT_EQ(json_raw(m, "/pub/data"), "3") << m;

  // A broadcast keys each room on its own: retried whole, nothing is sent
  // again; the key already used in `room` is new in `other`.
  const std::string both =
      R"({"channels":[")" + room + R"(",")" + other + R"("],"data":4,"idempotency_key":"k2"})";
  HttpReply b1 = api(first_port, "broadcast", both);
  EXPECT_EQ(json_uint(b1.body, "/result/responses/0/result/offset"), *offset + 1) << b1.body;
  EXPECT_EQ(json_uint(b1.body, "/result/responses/1/result/offset"), 1u) << b1.body;
  HttpReply b2 = api(retry_port, "broadcast", both);
  EXPECT_EQ(json_raw(b2.body, "/result"), json_raw(b1.body, "/result")) << b2.body;
  const std::string in_other = next_pub();
  EXPECT_EQ(json_str(in_other, "/pub/room"), other) << in_other;
  ASSERT_EQ(api(first_port, "publish", named + R"(,"data":"last"})").status, 200);
  EXPECT_EQ(json_raw(next_pub(), "/pub/data"), R"("last")");

  // Refused with what is wrong: a key with skip_history, an empty or long one.
  for (const std::string& bad :
       {named + R"(,"data":1,"skip_history":true,"idempotency_key":"k3"})",
        named + R"(,"data":1,"idempotency_key":""})",
        named + R"(,"data":1,"idempotency_key":")" + std::string(257, 'x') + "\"}",
        named + R"(,"data":1,"idempotency_key":7})"}) {
    HttpReply r = api(first_port, "publish", bad);
    EXPECT_EQ(json_uint(r.body, "/error/code"), 107u) << bad << " -> " << r.body;
    EXPECT_THAT(r.body, ::testing::HasSubstr("idempotency_key")) << r.body;
  }
}

}  // namespace herald::test
