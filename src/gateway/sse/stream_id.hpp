// The SSE event id: where an event stream stands in every one of its rooms,
// so that a browser's EventSource, reconnecting with the last id it saw in
// Last-Event-ID, resumes each room exactly there (a subscribe with since).
//
// Format: one entry per room, comma-separated, each ROOM.EPOCH.OFFSET:
//   chat:lobby.5f2c9a1e.7,news.b1e3a07c.0
// Every byte is one that an HTTP header carries and that an SSE id may
// hold (no CR, LF or NUL), and none that ends a URL's query ('#'); in a
// query it is percent-encoded like any value (the escapes' '%'). Room
// names are limited to letters, digits and _ - . : @ / = + ~ ! $ # ,
// (protocol/room_name.hpp), of which '#' and ',' (the entry separator) are
// written %23 and %2C (a name holds no '%', so this reads back exactly);
// epochs to letters, digits, '_' and '-', and offsets are decimal. A room
// name may contain '.' and so an entry is read from its right: the offset
// after the last '.', the epoch after the one before. The epoch may be
// empty (a room with no stream yet).
//
// The id carries every room of the stream, not just the one an event is
// about, because EventSource remembers one id for the whole stream.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "gateway/protocol/command.hpp"

namespace herald::gateway::sse {

// Longest epoch accepted in an id (the brokers make 8 hex digits).
inline constexpr std::size_t kMaxEpochBytes = 64;

// `positions` in the format above, in their order.
[[nodiscard]] std::string format_stream_id(const protocol::RoomPositions& positions);

// The positions an id names, in its order, or what is wrong with it (a
// room name, epoch or offset that is not valid, a room named twice).
[[nodiscard]] std::variant<protocol::RoomPositions, std::string> parse_stream_id(
    std::string_view id);

}  // namespace herald::gateway::sse
