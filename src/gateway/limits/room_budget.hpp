// The rooms a node holds, against rooms.max_rooms.
//
// Rooms are free to create (any name, one subscribe or publish) and cost
// memory to keep (their state, history and presence), so the number held at
// once is a budget: the broker acquires one unit before it creates a room's
// state and releases it when the state goes. At the cap, a command that
// would create one more room is refused with 115 (too_many_rooms); rooms
// that exist go on as before. What a room is depends on the broker:
//
//  - memory: a room with subscribers or a stream (a publication not yet
//    expired); every room of the process, across the home shards, so the
//    count is atomic.
//  - redis: a room this node follows (it has local subscribers); the rooms
//    themselves live in Redis, which a node cannot count, so each node caps
//    what it holds.
//
// Exposed as herald_rooms (held now) and herald_rooms_refused_total.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "core/metrics/registry.hpp"
#include "gateway/protocol/requests.hpp"

namespace herald::gateway::limits {

class RoomBudget {
 public:
  RoomBudget(std::uint32_t max_rooms, metrics::Registry& registry);

  // One room more, unless max_rooms are held (then counted as refused).
  // Thread-safe.
  [[nodiscard]] bool try_acquire();
  // One room fewer; pairs with a successful try_acquire(). Thread-safe.
  void release();
  // The error a refused command answers.
  [[nodiscard]] protocol::BrokerError refusal(const std::string& room) const;

  [[nodiscard]] std::uint32_t held() const { return held_.load(std::memory_order_relaxed); }

 private:
  const std::uint32_t max_rooms_;
  std::atomic<std::uint32_t> held_{0};
  metrics::Gauge& rooms_;
  metrics::Counter& refused_;
};

}  // namespace herald::gateway::limits
