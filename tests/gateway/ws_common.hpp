// Shared helpers for the WebSocket process tests.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "support/daemon.hpp"
#include "support/json.hpp"
#include "support/ws_client.hpp"

namespace herald::test {

using namespace std::chrono_literals;

// A client connected as `user` (dev mode), to the WebSocket endpoint at
// `path`.
inline std::unique_ptr<WsClient> connect_as(std::uint16_t port, const std::string& user,
                                            const std::string& path = "/ws") {
  auto c = std::make_unique<WsClient>("127.0.0.1", port, path);
  auto r = request(*c, 1, R"({"id":1,"connect":{"user":")" + user + R"("}})");
  EXPECT_TRUE(r && json_has(*r, "/result/client")) << r.value_or("(no reply)");
  return c;
}

// Subscribes and returns the reply.
inline std::string subscribe(WsClient& c, std::uint32_t id, const std::string& room,
                             const std::string& since = "") {
  std::string cmd = R"({"id":)" + std::to_string(id) + R"(,"subscribe":{"room":")" + room + "\"";
  if (!since.empty()) cmd += R"(,"since":)" + since;
  cmd += "}}";
  auto r = request(c, id, cmd);
  EXPECT_TRUE(r) << "no reply to " << cmd;
  return r.value_or("");
}

inline std::string publish(WsClient& c, std::uint32_t id, const std::string& room,
                           const std::string& data) {
  auto r = request(c, id,
                   R"({"id":)" + std::to_string(id) + R"(,"publish":{"room":")" + room +
                       R"(","data":)" + data + "}}");
  EXPECT_TRUE(r);
  return r.value_or("");
}

// The next push that is a publication, skipping other pushes (join, leave).
inline std::optional<std::string> next_pub(WsClient& c,
                                           std::chrono::milliseconds t = std::chrono::seconds(5)) {
  while (auto m = c.next(t)) {
    if (json_has(*m, "/pub")) return m;
  }
  return std::nullopt;
}

// A bystander that must be unaffected by whatever the test does to others.
inline void expect_alive(WsClient& c, std::uint32_t id) {
  auto r = request(c, id, R"({"id":)" + std::to_string(id) + R"(,"ping":{}})");
  EXPECT_TRUE(r) << "bystander lost";
  if (r) {
    EXPECT_EQ(*r, R"({"id":)" + std::to_string(id) + R"(,"result":{}})");
  }
}

}  // namespace herald::test
