// Herald's protocol over Server-Sent Events (docs/protocol.md, "Server-Sent
// Events"): what an event stream's events say, made from the client core's
// values, so the transport (sse/sse_session.hpp) only frames and writes
// them. A stream takes no commands, so there is nothing to decode; what it
// sends is:
//   - "connected", once every room has answered: {client, user, version};
//   - per room "subscribed" ({room, epoch, offset, recovered}) or
//     "refused" ({room, error}), and "recovery" ({room, recovered:false,
//     epoch, offset}) where a position could not be resumed;
//   - every push as a default ("message") event whose data is the push's
//     canonical line, as a WebSocket client of Herald's protocol reads it;
//   - the disconnect push, as that client reads it too.
// Each event's id (sse/stream_id.hpp) holds the positions of every room of
// the stream, which move with each in-stream publication: position_of()
// reads a publication's from its canonical line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/protocol/command.hpp"
#include "gateway/protocol/replies.hpp"

namespace herald::gateway::codec::herald_sse {

// The event names of the opening.
inline constexpr std::string_view kConnected = "connected";
inline constexpr std::string_view kSubscribed = "subscribed";
inline constexpr std::string_view kRefused = "refused";
inline constexpr std::string_view kRecovery = "recovery";

// "connected": who the stream's client is, and the server's version.
[[nodiscard]] std::string connected(const protocol::ConnectReply& reply);
// "subscribed": the room joined at `position` (its epoch, and the offset its
// subscription took effect at), recovered or not.
[[nodiscard]] std::string subscribed(std::string_view room, const protocol::StreamPosition& at,
                                     bool recovered);
// "recovery": the room's given position could not be resumed; it starts
// over at `at`.
[[nodiscard]] std::string recovery(std::string_view room, const protocol::StreamPosition& at);
// "refused": the room and why.
[[nodiscard]] std::string refused(std::string_view room, const protocol::BrokerError& error);
// The disconnect push's data.
[[nodiscard]] std::string disconnect(std::uint16_t code, std::string_view reason, bool reconnect);

// Where an in-stream publication stands in its room, from its canonical
// line; nullopt for other pushes and publications outside the stream.
[[nodiscard]] std::optional<protocol::StreamPosition> position_of(std::string_view push);

}  // namespace herald::gateway::codec::herald_sse
