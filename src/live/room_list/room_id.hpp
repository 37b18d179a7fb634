// RoomId: a room's typed 32-bit identity within one process.
//
// The server maps its external room names to these once, at the boundary;
// everything in the room list speaks RoomId, so a room can never be confused
// with a subscriber, a position or a count.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace herald::live {

struct RoomId {
  std::uint32_t value = 0;
  friend constexpr auto operator<=>(RoomId, RoomId) = default;
};

struct RoomIdHash {
  std::size_t operator()(RoomId id) const noexcept { return std::hash<std::uint32_t>{}(id.value); }
};

}  // namespace herald::live
