// A history's `since` as both brokers must read it (the embedded one in
// api_test.cpp, Redis in cluster_test.cpp): with the room's epoch, or with
// none (Centrifugo's clients leave it out when they do not know it: read
// in the current epoch), the publications after the offset; with another
// epoch, refused, never answered from the wrong stream.
#pragma once

#include <string>

#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {

// `port` serves the API (key "k3y"); `room` is fresh.
inline void expect_history_since_reads_the_current_epoch(std::uint16_t port,
                                                         const std::string& room) {
  auto api = [port](const std::string& method, const std::string& body) {
    return api_post(port, "/api/" + method, body, "k3y");
  };
  const std::string named = R"({"room":")" + room + "\"";
  for (int i = 1; i <= 3; ++i)
    ASSERT_EQ(api("publish", named + ",\"data\":" + std::to_string(i) + "}").status, 200);
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
