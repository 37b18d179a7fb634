// Cluster tests' fixtures: one real redis-server and N real heraldd nodes
// in cluster mode pointed at it, all on loopback, started by the test.
#pragma once

#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gateway/ws_common.hpp"
#include "redis_server.hpp"
#include "support/daemon.hpp"
#include "support/http_client.hpp"

namespace herald::test {

inline bool eventually(const std::function<bool()>& pred,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

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

// The next push that is a publication, skipping join/leave pushes.
inline std::optional<std::string> next_pub(WsClient& c,
                                           std::chrono::milliseconds t = std::chrono::seconds(5)) {
  while (auto m = c.next(t)) {
    if (json_has(*m, "/pub")) return m;
  }
  return std::nullopt;
}

}  // namespace herald::test
