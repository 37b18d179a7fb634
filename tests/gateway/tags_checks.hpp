// What a publication's tags promise (Centrifugo's `tags`, a map of strings
// the server API's publish and broadcast take), checked the same way against
// either broker (the embedded one in api_test.cpp, Redis in
// cluster_test.cpp): the tags reach every subscriber with the publication,
// in the stream and outside it, stay with it in the history, and count
// against max_publication_bytes with its data; anything but an object of
// strings is refused by name.
#pragma once

#include <string>

#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {

// `api_port` serves the API (key "k3y") and `ws_port` the subscriber; in a
// cluster they may be two nodes. `room` is fresh, and its
// max_publication_bytes the default (16 KiB).
inline void expect_tags_travel_with_the_publication(std::uint16_t api_port, std::uint16_t ws_port,
                                                    const std::string& room) {
  auto api = [api_port](const std::string& method, const std::string& body) {
    return api_post(api_port, "/api/" + method, body, "k3y");
  };
  auto sub = connect_as(ws_port, "watcher");
  ASSERT_TRUE(json_has(subscribe(*sub, 2, room), "/result"));
  auto next_pub = [&sub] { return herald::test::next_pub(*sub).value_or(""); };
  const std::string named = R"({"channel":")" + room + "\"";
  constexpr std::string_view kTags = R"({"kind":"alert","level":"2"})";

  HttpReply r = api("publish", named + R"(,"data":1,"tags":{ "kind" : "alert", "level":"2" }})");
  ASSERT_EQ(r.status, 200) << r.body;
  std::string m = next_pub();
  EXPECT_EQ(json_raw(m, "/pub/tags"), kTags) << m;
  EXPECT_EQ(json_raw(m, "/pub/data"), "1") << m;
  // Outside the stream and through a broadcast alike.
  r = api("publish", named + R"(,"data":2,"skip_history":true,"tags":{"kind":"live"}})");
  ASSERT_EQ(r.status, 200) << r.body;
  m = next_pub();
  EXPECT_EQ(json_raw(m, "/pub/tags"), R"({"kind":"live"})") << m;
  r = api("broadcast", R"({"channels":[")" + room + R"("],"data":3,"tags":{"via":"broadcast"}})");
  ASSERT_EQ(r.status, 200) << r.body;
  m = next_pub();
  EXPECT_EQ(json_raw(m, "/pub/tags"), R"({"via":"broadcast"})") << m;
  // None, or an empty map: no tags at all, as Centrifugo leaves them out.
  ASSERT_EQ(api("publish", named + R"(,"data":4,"tags":{}})").status, 200);
  m = next_pub();
  EXPECT_FALSE(json_has(m, "/pub/tags")) << m;

  // The history keeps them with the publication (the live one is not in it).
  r = api("history", named + R"(,"limit":10})");
  ASSERT_EQ(json_size(r.body, "/result/publications"), 3u) << r.body;
  EXPECT_EQ(json_raw(r.body, "/result/publications/0/tags"), kTags) << r.body;
  EXPECT_EQ(json_raw(r.body, "/result/publications/1/tags"), R"({"via":"broadcast"})") << r.body;
  EXPECT_FALSE(json_has(r.body, "/result/publications/2/tags")) << r.body;

  // Refused with what is wrong: not an object, a value not a string, and
  // data and tags together past max_publication_bytes (16 KiB).
  for (const std::string& bad :
       {named + R"(,"data":1,"tags":["kind"]})", named + R"(,"data":1,"tags":{"n":1}})",
        named + R"(,"data":1,"tags":{"a":"x","b":null}})"}) {
    r = api("publish", bad);
    EXPECT_EQ(json_uint(r.body, "/error/code"), 107u) << bad << " -> " << r.body;
    EXPECT_THAT(r.body, ::testing::HasSubstr("tags")) << r.body;
  }
  const std::string half(9000, 'x');
  r = api("publish", named + R"(,"data":")" + half + R"(","tags":{"t":")" + half + "\"}}");
  EXPECT_EQ(json_uint(r.body, "/error/code"), 106u) << r.body;  // Centrifugo's limit exceeded
  EXPECT_THAT(r.body, ::testing::HasSubstr("data and tags are")) << r.body;
  ASSERT_EQ(api("publish", named + R"(,"data":"last"})").status, 200);
  EXPECT_EQ(json_raw(next_pub(), "/pub/data"), R"("last")");
}

}  // namespace herald::test
