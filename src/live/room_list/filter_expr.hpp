// A room filter as data: the tree a client sends (`rooms.watch`'s
// `filter`, docs/protocol.md) and the engine compiles once into the
// RoomFilter a view evaluates (filters.hpp). Keeping the description apart
// from the closures lets a codec parse and bound it (size, depth) without
// building anything, and a command carry it as a value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "live/room_list/filters.hpp"

namespace herald::live {

struct RoomFilterExpr {
  enum class Kind : std::uint8_t {
    all,           // every part holds (true when none)
    any,           // some part holds (false when none)
    not_,          // its one part does not hold
    unread,        // filter_unread
    mentions,      // filter_mentions
    favourite,     // filter_favourite
    low_priority,  // filter_low_priority
    direct,        // filter_category(direct)
    group,         // filter_category(group)
    invite,        // filter_invite
    joined,        // filter_joined
    non_left,      // filter_non_left
    name,          // filter_normalized_name(text)
    fuzzy_name,    // filter_fuzzy_name(text)
  };
  Kind kind = Kind::all;
  std::string text;                   // name, fuzzy_name
  std::vector<RoomFilterExpr> parts;  // all, any, not_ (one)
};

// The limits a parser holds a client's tree to: nodes in all, and nesting.
inline constexpr std::size_t kMaxFilterNodes = 64;
inline constexpr std::size_t kMaxFilterDepth = 8;

// The tree as a RoomFilter, made of filters.hpp's (built once; evaluating
// it allocates nothing). A not_ without its part accepts no room.
[[nodiscard]] RoomFilter compile(const RoomFilterExpr& expr);

}  // namespace herald::live
