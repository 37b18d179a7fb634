// The server's half of permessage-deflate's negotiation (RFC 7692 §5, §7.1):
// read the client's Sec-WebSocket-Extensions offers, accept the first one we
// can honour, and answer with the response's parameters.
//
// What we answer is fixed by how we compress (ws/deflate_codec.hpp):
// - server_no_context_takeover, always (§7.1.1.1 lets a server add it to any
//   accepted offer). A publication is compressed once and the same bytes go
//   to every subscriber, so no compressed message may refer to an earlier
//   one.
// - client_no_context_takeover, always (§7.1.1.2 lets a server add it). A
//   client's messages are then each inflated on their own, by the shard's
//   one inflater: no 32 KiB window is kept per connection.
// - server_max_window_bits=15 only when the offer names it with 15 (§7.1.2.1:
//   accepting it means answering with the same or a smaller value). Our
//   shared compressed bytes use a 15-bit window, so an offer that asks for a
//   smaller one is declined and the next offer is considered.
// - client_max_window_bits never: we inflate with a 15-bit window, which
//   reads any window the client uses.
// An offer is declined (and the next one considered) when a parameter is
// unknown, repeated, has a value where none is allowed (or none where one
// is required), or a window size outside 8..15 (§7.1: "a server MUST
// decline an extension negotiation offer" with such parameters). Values may
// be tokens or quoted strings (RFC 6455 §9.1).
//
// Pure: no I/O, no allocation beyond the strings it returns.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace herald::gateway::ws {

// The response's Sec-WebSocket-Extensions value for the first acceptable
// permessage-deflate offer in `offers` (one header value; several header
// fields are joined with ", " by the caller), or nothing when none is.
[[nodiscard]] std::optional<std::string> negotiate_permessage_deflate(std::string_view offers);

}  // namespace herald::gateway::ws
