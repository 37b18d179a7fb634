// Cluster tests' fixtures: one real redis-server and N real heraldd nodes
// in cluster mode pointed at it, all on loopback, started by the test.
#pragma once

#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gateway/ws_common.hpp"
#include "redis_server.hpp"
#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/http_client.hpp"

namespace herald::test {

inline double node_metric(std::uint16_t port, const std::string& series) {
  return metric_value(http_get("127.0.0.1", port, "/metrics").body, series);
}

// heraldd flags for a node of the cluster on `redis_port`.
inline std::vector<std::string> cluster_flags(std::uint16_t redis_port,
                                              std::vector<std::string> extra = {}) {
  std::vector<std::string> f = {"--cluster.mode",
                                "redis",
                                "--cluster.redis.address",
                                "127.0.0.1:" + std::to_string(redis_port),
                                "--cluster.redis.reconnect_max",
                                "200ms",
                                "--rooms.join_leave",
                                "true"};
  f.insert(f.end(), extra.begin(), extra.end());
  return f;
}

// Reads `c` until a disconnect push, failing the test on any publication
// before it (`across`: what it would have been delivered across); true
// when the push came and its code is 3005 (stream reset).
inline bool expect_reset(WsClient& c, const std::string& across,
                         std::chrono::milliseconds t = std::chrono::seconds(10)) {
  while (auto m = c.next(t)) {
    EXPECT_FALSE(json_has(*m, "/pub")) << "delivered across " << across << ": " << *m;
    if (json_has(*m, "/pub")) return false;
    if (json_has(*m, "/disconnect")) {
      EXPECT_EQ(json_uint(*m, "/disconnect/code"), 3005u) << *m;
      return json_uint(*m, "/disconnect/code") == 3005u;
    }
  }
  ADD_FAILURE() << "no reset (disconnect push) within " << t.count() << " ms";
  return false;
}

// Rooms `prefix`0 .. `prefix`<rooms - 1>: a subscriber on the node at
// `to` subscribes to all, a publisher on the node at `from` publishes once
// in each, and every room's publication reaches the subscriber. Returns the
// publisher, connected, for more.
inline std::unique_ptr<WsClient> expect_rooms_reach_across(std::uint16_t from, std::uint16_t to,
                                                           const std::string& prefix, int rooms) {
  auto sub = connect_as(to, "s");
  for (int i = 0; i < rooms; ++i)
    EXPECT_TRUE(json_has(subscribe(*sub, 100 + i, prefix + std::to_string(i)), "/result"));
  auto pub = connect_as(from, "p");
  for (int i = 0; i < rooms; ++i) {
    auto r = publish(*pub, 200 + i, prefix + std::to_string(i), std::to_string(i));
    EXPECT_TRUE(json_has(r, "/result")) << r;
  }
  std::set<std::string> got;
  for (int i = 0; i < rooms; ++i) {
    auto m = next_pub(*sub);
    if (!m) break;
    got.insert(json_str(*m, "/pub/room").value_or(""));
  }
  EXPECT_EQ(got.size(), static_cast<std::size_t>(rooms));
  return pub;
}

}  // namespace herald::test
