// Room filters: predicates over one RoomListItem.
//
// Contract: a filter reads only the item's cached fields, takes no lock and
// allocates nothing per call; its answer depends on the item alone (the
// filter view evaluates it once per arriving value). Combinators own their
// parts. Changing the list's filter restarts its pipeline with a Reset
// (RoomListView::set_filter); a filter is never mutated in place.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "live/room_list/item.hpp"

namespace herald::live {

using RoomFilter = std::function<bool(const RoomListItem&)>;

enum class RoomCategory : std::uint8_t { direct, group };

// Every part accepts (true when empty).
[[nodiscard]] RoomFilter filter_all(std::vector<RoomFilter> filters);
// Some part accepts (false when empty).
[[nodiscard]] RoomFilter filter_any(std::vector<RoomFilter> filters);
[[nodiscard]] RoomFilter filter_not(RoomFilter filter);
// Accepts no room (the empty list).
[[nodiscard]] RoomFilter filter_none();
// Asks for attention: notification_count > 0 (unread publications the
// room's notification mode counts) or marked unread, as the Matrix SDK's
// unread filter (a muted room with unread publications is not "unread").
[[nodiscard]] RoomFilter filter_unread();
// mention_count > 0.
[[nodiscard]] RoomFilter filter_mentions();
[[nodiscard]] RoomFilter filter_favourite();
[[nodiscard]] RoomFilter filter_low_priority();
// DM or group.
[[nodiscard]] RoomFilter filter_category(RoomCategory category);
// Membership is `invited`.
[[nodiscard]] RoomFilter filter_invite();
// Membership is `joined`.
[[nodiscard]] RoomFilter filter_joined();
// Membership is anything but `left` (invites, knocks, bans stay listed, as
// in the Matrix SDK: the user has not left them).
[[nodiscard]] RoomFilter filter_non_left();
// The normalized name contains the normalized pattern (an empty pattern
// matches every room).
[[nodiscard]] RoomFilter filter_normalized_name(std::string_view pattern);
// The normalized pattern's characters appear in the normalized name in order,
// not necessarily adjacent ("hrld" matches "herald"); an empty pattern
// matches every room.
[[nodiscard]] RoomFilter filter_fuzzy_name(std::string_view pattern);

// The subsequence test behind filter_fuzzy_name, on already normalized text.
[[nodiscard]] bool fuzzy_match(std::string_view haystack, std::string_view pattern);

}  // namespace herald::live
