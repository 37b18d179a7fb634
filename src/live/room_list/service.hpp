// RoomListService: every room of one user, as an ObservableVector of
// RoomListItems in the order the rooms were added.
//
// This is the "entries" source of the room list; each RoomListView
// subscribes to it and sorts, filters and pages for one client. The service
// is where shared room state (RoomInfo) is read, once per change of a room;
// nothing downstream reads RoomInfo.
//
// Single-threaded, like the vector it owns: one shard owns a user's rooms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "live/observable_vector.hpp"
#include "live/room_list/item.hpp"
#include "live/room_list/room_id.hpp"

namespace herald::live {

enum class RoomListError : std::uint8_t { ok, unknown_room, duplicate_room };

[[nodiscard]] std::string_view message(RoomListError e);

class RoomListService {
 public:
  explicit RoomListService(
      std::size_t buffer_capacity = ObservableVector<RoomListItem>::kDefaultBufferCapacity)
      : entries_(buffer_capacity) {}

  // Adds a room at the end (PushBack).
  [[nodiscard]] RoomListError add_room(const RoomInfo& info);
  // Refreshes the room's item from `info`; emits one Set if a key changed,
  // nothing otherwise. Allocates only when the display name changed.
  [[nodiscard]] RoomListError update_room(const RoomInfo& info);
  // Removes the room (Remove). O(n): later rooms' positions shift.
  [[nodiscard]] RoomListError remove_room(RoomId id);

  [[nodiscard]] const RoomListItem* find(RoomId id) const;
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] ObservableVector<RoomListItem>& entries() { return entries_; }
  [[nodiscard]] const ObservableVector<RoomListItem>& entries() const { return entries_; }

 private:
  ObservableVector<RoomListItem> entries_;
  std::unordered_map<RoomId, std::uint32_t, RoomIdHash> position_;  // id -> index in entries_
  RoomListItem scratch_;  // reused so a refresh copies into warm storage
};

}  // namespace herald::live
