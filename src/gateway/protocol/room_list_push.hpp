// The `rooms` push (docs/protocol.md, "Room lists"): a connection's room
// list as live diffs, in the canonical form every push has (Herald's JSON
// line; another codec re-encodes it, codec/codec.hpp):
//
//   {"rooms":{"diffs":[{"op":"reset","values":[{...},...]},{"op":"set","index":0,"value":{...}}]}}
//
// The client core's room list (client/room_list_feed.hpp) decides the
// diffs and each row's content; this file only says how they look, so the
// core writes no JSON. A diff's entries are asked of the caller one by one
// (`row_of`), so a batch is written straight into one string with nothing
// allocated per entry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "live/diff.hpp"
#include "live/room_list/item.hpp"

namespace herald::gateway::protocol {

// One row of a room list as the client sees it.
struct RoomRow {
  std::string_view room;     // the room's name in the protocol
  std::string_view name;     // its display name (a rename changes it)
  std::string_view preview;  // the last publication's, cut
  std::string_view sender;   // the last publication's sender, or empty
  std::uint64_t time_ms = 0;
  std::uint32_t unread = 0;
  std::uint32_t mentions = 0;
  std::uint32_t notifications = 0;  // live::notification_count
  bool favourite = false;
  bool low_priority = false;
  bool marked_unread = false;
  live::NotifyMode notify = live::NotifyMode::all;
  bool direct = false;   // a DM (a membership's flag)
  bool invited = false;  // a membership not accepted yet
};

// A notification mode's name on the wire ("all", "mentions", "mute"), and
// the mode of a name (nullopt: none).
[[nodiscard]] std::string_view notify_mode_name(live::NotifyMode mode);
[[nodiscard]] std::optional<live::NotifyMode> notify_mode_named(std::string_view name);

void append_room_row(std::string& out, const RoomRow& row);

// The batch as one push line; empty when the batch is. `row_of(item)`
// gives each carried item's row.
template <class RowOf>
[[nodiscard]] std::string encode_rooms_push(const live::DiffBatch<live::RoomListItem>& batch,
                                            RowOf&& row_of) {
  if (batch.empty()) return {};
  std::string out = "{\"rooms\":{\"diffs\":[";
  bool first = true;
  for (const auto& d : batch) {
    if (!first) out += ',';
    first = false;
    out += "{\"op\":\"";
    out += live::to_string(d.op);
    out += '"';
    switch (d.op) {
      case live::DiffOp::append:
      case live::DiffOp::reset:
        out += ",\"values\":[";
        for (std::size_t i = 0; i < d.values.size(); ++i) {
          if (i) out += ',';
          append_room_row(out, row_of(d.values[i]));
        }
        out += ']';
        break;
      case live::DiffOp::push_front:
      case live::DiffOp::push_back:
        out += ",\"value\":";
        append_room_row(out, row_of(d.value));
        break;
      case live::DiffOp::insert:
      case live::DiffOp::set:
        out += ",\"index\":" + std::to_string(d.index) + ",\"value\":";
        append_room_row(out, row_of(d.value));
        break;
      case live::DiffOp::remove:
        out += ",\"index\":" + std::to_string(d.index);
        break;
      case live::DiffOp::truncate:
        out += ",\"length\":" + std::to_string(d.index);
        break;
      case live::DiffOp::clear:
      case live::DiffOp::pop_front:
      case live::DiffOp::pop_back:
        break;
    }
    out += '}';
  }
  out += "]}}";
  return out;
}

}  // namespace herald::gateway::protocol
