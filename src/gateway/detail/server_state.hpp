// State the server shares with its connections. Fields marked "shard-local"
// are touched only from that shard's thread (no lock); the atomics are the
// only cross-shard state a connection touches, and only on open and close.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <unordered_set>
#include <vector>

#include "core/metrics/registry.hpp"
#include "gateway/http_router.hpp"
#include "gateway/options.hpp"

namespace herald::gateway {

class HttpSession;

namespace detail {

struct ShardState {
  std::unordered_set<HttpSession*> sessions;  // shard-local
};

struct ServerState {
  ServerState(const Options& o, metrics::Registry& r) : options(o), registry(r) {}

  const Options& options;
  metrics::Registry& registry;
  HttpRouter router;  // filled before start(), read-only afterwards
  std::vector<ShardState> shards;

  std::atomic<bool> draining{false};
  std::atomic<std::size_t> connections{0};

  // Responses by status class: [0] 1xx ... [4] 5xx.
  std::array<metrics::Counter*, 5> responses{};
  metrics::Counter* accepted = nullptr;
  metrics::Counter* rejected_limit = nullptr;

  void count_response(unsigned status) {
    unsigned cls = status / 100;
    if (cls >= 1 && cls <= 5) responses[cls - 1]->inc();
  }
};

}  // namespace detail
}  // namespace herald::gateway
