#include "gateway/limits/room_budget.hpp"

namespace herald::gateway::limits {

RoomBudget::RoomBudget(std::uint32_t max_rooms, metrics::Registry& registry)
    : max_rooms_(max_rooms),
      rooms_(registry.gauge("herald_rooms", "Rooms this node holds now (rooms.max_rooms caps it)")),
      refused_(registry.counter("herald_rooms_refused_total",
                                "Commands refused because they would open a room past "
                                "rooms.max_rooms (error 115)")) {}

bool RoomBudget::try_acquire() {
  // A compare-exchange loop, not fetch_add then undo: an add past the cap,
  // seen by another shard before its undo, would refuse that shard's room
  // below the cap.
  std::uint32_t held = held_.load(std::memory_order_relaxed);
  do {
    if (held >= max_rooms_) {
      refused_.inc();
      return false;
    }
  } while (!held_.compare_exchange_weak(held, held + 1, std::memory_order_relaxed));
  rooms_.add(1);
  return true;
}

void RoomBudget::release() {
  held_.fetch_sub(1, std::memory_order_relaxed);
  rooms_.sub(1);
}

protocol::BrokerError RoomBudget::refusal(const std::string& room) const {
  return protocol::BrokerError{protocol::ErrorCode::too_many_rooms,
                               "cannot open room '" + room +
                                   "': this node holds rooms.max_rooms (" +
                                   std::to_string(max_rooms_) + ") rooms; try again later"};
}

}  // namespace herald::gateway::limits
