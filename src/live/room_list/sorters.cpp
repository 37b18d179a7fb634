#include "live/room_list/sorters.hpp"

namespace herald::live {

RoomSorter sort_unsent_first() {
  return RoomSorter(RoomSortKey::unsent_first);
}
RoomSorter sort_recency() {
  return RoomSorter(RoomSortKey::recency);
}
RoomSorter sort_name() {
  return RoomSorter(RoomSortKey::name);
}

RoomSorter sort_lexicographic(std::initializer_list<RoomSorter> sorters) {
  RoomSorter out;
  for (const RoomSorter& s : sorters) out.then(s);
  return out;
}

RoomSorter default_room_sorter() {
  return sort_lexicographic({sort_unsent_first(), sort_recency(), sort_name()});
}

}  // namespace herald::live
