#include "live/room_list/service.hpp"

namespace herald::live {

std::string_view message(RoomListError e) {
  switch (e) {
    case RoomListError::ok:
      return "ok";
    case RoomListError::unknown_room:
      return "unknown room";
    case RoomListError::duplicate_room:
      return "room already in the list";
  }
  return "?";
}

RoomListError RoomListService::add_room(const RoomInfo& info) {
  const auto [it, inserted] =
      position_.try_emplace(info.id, static_cast<std::uint32_t>(entries_.size()));
  if (!inserted) return RoomListError::duplicate_room;
  entries_.push_back(RoomListItem(info));
  return RoomListError::ok;
}

RoomListError RoomListService::update_room(const RoomInfo& info) {
  const auto it = position_.find(info.id);
  if (it == position_.end()) return RoomListError::unknown_room;
  scratch_ = entries_[it->second];
  if (!scratch_.refresh(info)) return RoomListError::ok;
  entries_.set(it->second, scratch_);
  return RoomListError::ok;
}

RoomListError RoomListService::remove_room(RoomId id) {
  const auto it = position_.find(id);
  if (it == position_.end()) return RoomListError::unknown_room;
  const std::uint32_t index = it->second;
  position_.erase(it);
  (void)entries_.remove(index);
  for (auto& [room, pos] : position_) pos -= pos > index ? 1 : 0;
  return RoomListError::ok;
}

const RoomListItem* RoomListService::find(RoomId id) const {
  const auto it = position_.find(id);
  return it == position_.end() ? nullptr : &entries_[it->second];
}

}  // namespace herald::live
