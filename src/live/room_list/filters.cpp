#include "live/room_list/filters.hpp"

#include <string>
#include <utility>

namespace herald::live {

RoomFilter filter_all(std::vector<RoomFilter> filters) {
  return [filters = std::move(filters)](const RoomListItem& item) {
    for (const RoomFilter& f : filters) {
      if (!f(item)) return false;
    }
    return true;
  };
}

RoomFilter filter_any(std::vector<RoomFilter> filters) {
  return [filters = std::move(filters)](const RoomListItem& item) {
    for (const RoomFilter& f : filters) {
      if (f(item)) return true;
    }
    return false;
  };
}

RoomFilter filter_not(RoomFilter filter) {
  return [filter = std::move(filter)](const RoomListItem& item) { return !filter(item); };
}

RoomFilter filter_none() {
  return [](const RoomListItem&) { return false; };
}

RoomFilter filter_unread() {
  return
      [](const RoomListItem& item) { return item.notification_count > 0 || item.is_marked_unread; };
}

RoomFilter filter_mentions() {
  return [](const RoomListItem& item) { return item.mention_count > 0; };
}

RoomFilter filter_favourite() {
  return [](const RoomListItem& item) { return (item.tags & kTagFavourite) != 0; };
}

RoomFilter filter_low_priority() {
  return [](const RoomListItem& item) { return (item.tags & kTagLowPriority) != 0; };
}

RoomFilter filter_category(RoomCategory category) {
  const bool direct = category == RoomCategory::direct;
  return [direct](const RoomListItem& item) { return item.is_direct == direct; };
}

RoomFilter filter_invite() {
  return [](const RoomListItem& item) { return item.membership == Membership::invited; };
}

RoomFilter filter_joined() {
  return [](const RoomListItem& item) { return item.membership == Membership::joined; };
}

RoomFilter filter_non_left() {
  return [](const RoomListItem& item) { return item.membership != Membership::left; };
}

RoomFilter filter_normalized_name(std::string_view pattern) {
  return [p = normalize_name(pattern)](const RoomListItem& item) {
    return item.normalized_name().find(p) != std::string_view::npos;
  };
}

bool fuzzy_match(std::string_view haystack, std::string_view pattern) {
  std::size_t at = 0;
  for (const char c : pattern) {
    if (c == ' ') continue;  // words of the pattern may be apart in the name
    at = haystack.find(c, at);
    if (at == std::string_view::npos) return false;
    ++at;
  }
  return true;
}

RoomFilter filter_fuzzy_name(std::string_view pattern) {
  return [p = normalize_name(pattern)](const RoomListItem& item) {
    return fuzzy_match(item.normalized_name(), p);
  };
}

}  // namespace herald::live
