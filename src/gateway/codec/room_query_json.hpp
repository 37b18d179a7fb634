// rooms.watch's `filter` and `sort` in Herald's JSON (docs/protocol.md,
// "Room lists"), read into the engine's values: a live::RoomFilterExpr
// tree and a live::RoomSorter key list.
//
//   "filter": {"unread": true, "not": {"category": "direct"}}
//   "filter": {"any": [{"mentions": true}, {"favourite": true}]}
//   "sort": "activity" | "name" | ["local", "recency", "name"]
//
// A filter object's conditions all hold; `all` and `any` take lists of
// filter objects and `not` one. A flag given false adds nothing (so a
// client may send its whole form). The tree is bounded
// (live::kMaxFilterNodes conditions, live::kMaxFilterDepth nesting) and
// every refusal names where it is: "rooms.watch.filter.any[1].category:
// expected "direct" or "group"".
#pragma once

#include <simdjson.h>

#include "gateway/codec/json_fields.hpp"
#include "live/room_list/filter_expr.hpp"
#include "live/room_list/sorters.hpp"

namespace herald::gateway::codec {

// `params.filter` into `out` (absent: every room); false with the
// refusal recorded in `fields`.
[[nodiscard]] bool read_room_filter(const JsonFields& fields, simdjson::dom::object params,
                                    live::RoomFilterExpr& out);
// `params.sort` into `out` (absent: "activity", live::default_room_sorter).
[[nodiscard]] bool read_room_sort(const JsonFields& fields, simdjson::dom::object params,
                                  live::RoomSorter& out);

}  // namespace herald::gateway::codec
