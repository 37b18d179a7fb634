// What a room's history promises through the server API, checked the same
// way against either broker (the embedded one in api_test.cpp, Redis in
// cluster_test.cpp):
//  - history_remove: the room's kept publications go, its epoch and offset
//    stay; a client behind the stream is answered recovered: false (told,
//    never shown a hole as continuous); the next publication continues at
//    offset + 1;
//  - history's `since`: with the room's epoch, or with none (Centrifugo's
//    clients leave it out when they do not know it: read in the current
//    epoch), the publications after the offset; with another epoch,
//    refused, never answered from the wrong stream.
#pragma once

#include <string>

#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {

// Calls /api/<method> on `port` with the key "k3y".
inline auto api_of(std::uint16_t port) {
  return [port](const std::string& method, const std::string& body) {
    return api_post(port, "/api/" + method, body, "k3y");
  };
}

// Publishes 1, 2 and 3 in `room` (offsets 1..3 of a fresh room).
inline void publish_one_two_three(std::uint16_t port, const std::string& room) {
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(
        api_of(port)("publish", R"({"room":")" + room + R"(","data":)" + std::to_string(i) + "}")
            .status,
        200);
  }
}

// `api_port` serves the API (key "k3y") and `ws_port` the client; in a
// cluster they are different nodes. `room` is fresh.
inline void expect_history_remove_keeps_the_stream(std::uint16_t api_port, std::uint16_t ws_port,
                                                   const std::string& room) {
  const auto api = api_of(api_port);
  const std::string named = R"({"room":")" + room + "\"";
  ASSERT_NO_FATAL_FAILURE(publish_one_two_three(api_port, room));
  HttpReply r = api("history", named + "}");
  ASSERT_EQ(json_size(r.body, "/result/publications"), 3u) << r.body;
  const std::string epoch = json_str(r.body, "/result/epoch").value_or("");

  r = api("history_remove", named + "}");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_raw(r.body, "/result"), "{}") << r.body;
  r = api("history", named + "}");
  EXPECT_EQ(json_size(r.body, "/result/publications").value_or(0), 0u) << r.body;
  EXPECT_EQ(json_str(r.body, "/result/epoch"), epoch) << r.body;
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 3u) << r.body;

  // A client that had seen offset 1 cannot recover 2 and 3: told so, and
  // given the position to go on from.
  auto client = connect_as(ws_port, "late");
  const std::string reply =
      subscribe(*client, 2, room, R"({"epoch":")" + epoch + R"(","offset":1})");
  EXPECT_EQ(json_bool(reply, "/result/recovered"), false) << reply;
  EXPECT_EQ(json_size(reply, "/result/publications").value_or(0), 0u) << reply;
  EXPECT_EQ(json_uint(reply, "/result/offset"), 3u) << reply;
  // One that had seen them all is still continuous.
  auto current = connect_as(ws_port, "current");
  const std::string up_to_date =
      subscribe(*current, 2, room, R"({"epoch":")" + epoch + R"(","offset":3})");
  EXPECT_EQ(json_bool(up_to_date, "/result/recovered"), true) << up_to_date;

  // The stream goes on where it was, and keeps again.
  r = api("publish", named + ",\"data\":4}");
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 4u) << r.body;
  EXPECT_EQ(json_str(r.body, "/result/epoch"), epoch) << r.body;
  r = api("history", named + "}");
  ASSERT_EQ(json_size(r.body, "/result/publications"), 1u) << r.body;
  EXPECT_EQ(json_uint(r.body, "/result/publications/0/offset"), 4u) << r.body;

  // A room that never was: nothing to remove, no error, nothing created.
  r = api("history_remove", R"({"room":")" + room + R"(:never"})");
  EXPECT_EQ(r.status, 200) << r.body;
  r = api("history", R"({"room":")" + room + R"(:never"})");
  EXPECT_EQ(json_uint(r.body, "/result/offset"), 0u) << r.body;
}

// `port` serves the API (key "k3y"); `room` is fresh.
inline void expect_history_since_reads_the_current_epoch(std::uint16_t port,
                                                         const std::string& room) {
  const auto api = api_of(port);
  const std::string named = R"({"room":")" + room + "\"";
  ASSERT_NO_FATAL_FAILURE(publish_one_two_three(port, room));
  const std::string epoch =
      json_str(api("history", named + "}").body, "/result/epoch").value_or("");
  ASSERT_FALSE(epoch.empty());

  for (const std::string& given : {epoch, std::string()}) {
    HttpReply r = api("history", named + R"(,"since":{"epoch":")" + given + R"(","offset":1}})");
    EXPECT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(json_size(r.body, "/result/publications"), 2u)
        << "epoch '" << given << "': " << r.body;
    EXPECT_EQ(json_uint(r.body, "/result/publications/0/offset"), 2u) << r.body;
    EXPECT_EQ(json_uint(r.body, "/result/publications/1/offset"), 3u) << r.body;
    EXPECT_EQ(json_str(r.body, "/result/epoch"), epoch) << r.body;
  }
  HttpReply other = api("history", named + R"(,"since":{"epoch":"not-it","offset":1}})");
  EXPECT_EQ(other.status, 400) << other.body;
  EXPECT_THAT(other.body, ::testing::HasSubstr("not the room's current epoch")) << other.body;
}

}  // namespace herald::test
