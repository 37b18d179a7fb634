#include "live/room_list/sorters.hpp"

#include <utility>

namespace herald::live {

RoomSorter sort_unsent_first() {
  return [](const RoomListItem& a, const RoomListItem& b) -> std::weak_ordering {
    // true (unsent) sorts before false.
    return b.latest_event_is_local <=> a.latest_event_is_local;
  };
}

RoomSorter sort_recency() {
  // Descending stamp puts 0 (never active) last without a special case.
  return [](const RoomListItem& a, const RoomListItem& b) -> std::weak_ordering {
    return b.recency_stamp <=> a.recency_stamp;
  };
}

RoomSorter sort_name() {
  return [](const RoomListItem& a, const RoomListItem& b) -> std::weak_ordering {
    // string_view comparison: no copy, no allocation.
    return a.normalized_name() <=> b.normalized_name();
  };
}

RoomSorter sort_lexicographic(std::vector<RoomSorter> sorters) {
  return [sorters = std::move(sorters)](const RoomListItem& a,
                                        const RoomListItem& b) -> std::weak_ordering {
    for (const RoomSorter& s : sorters) {
      if (const std::weak_ordering c = s(a, b); c != 0) return c;
    }
    return std::weak_ordering::equivalent;
  };
}

RoomSorter default_room_sorter() {
  return sort_lexicographic({sort_unsent_first(), sort_recency(), sort_name()});
}

}  // namespace herald::live
