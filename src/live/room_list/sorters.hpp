// Room sorters: three-way comparisons of two RoomListItems.
//
// Contract (what SortBy needs): each is a total preorder on items, reads
// only the items' cached fields, takes no lock and allocates nothing per
// call (pinned by tests/live/allocation_test.cpp). Equal items are ordered
// by the sort view itself (input order), so a sorter need not be strict.
#pragma once

#include <compare>
#include <functional>
#include <vector>

#include "live/room_list/item.hpp"

namespace herald::live {

using RoomSorter = std::function<std::weak_ordering(const RoomListItem&, const RoomListItem&)>;

// Rooms whose latest event is local and unsent come first.
[[nodiscard]] RoomSorter sort_unsent_first();
// Higher recency stamp first; rooms without one (0) last.
[[nodiscard]] RoomSorter sort_recency();
// Normalized display name, ascending (bytewise).
[[nodiscard]] RoomSorter sort_name();
// The first sorter that does not answer `equivalent` decides.
[[nodiscard]] RoomSorter sort_lexicographic(std::vector<RoomSorter> sorters);
// The room list's default: lexicographic(unsent first, recency, name).
[[nodiscard]] RoomSorter default_room_sorter();

}  // namespace herald::live
