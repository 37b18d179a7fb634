// The checks a client's publication passes before the publish hook or the
// broker sees it, whichever transport it came by (a WebSocket publish, an
// HTTP publish of the SSE fallback): one place, so the transports cannot
// drift apart. The rate (client.publish_rate) is the caller's: it is kept
// per connection, which only the caller knows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/auth/token.hpp"
#include "gateway/broker/broker.hpp"
#include "gateway/options.hpp"

namespace herald::gateway::client {

// Why `user` may not use `room` at all: a name that is not valid
// (bad_room), a user-limited room that does not list the user, or one the
// token's rooms claim does not allow (permission_denied). nullopt: it may.
// (A private room asks more: client/client.hpp, check_room.)
[[nodiscard]] std::optional<protocol::BrokerError> room_refusal(
    const std::optional<auth::Claims>& claims, std::string_view user, const std::string& room);

// Why `user` may not publish `data_bytes` of data in `room`: the room
// (room_refusal), a namespace with publish = false (permission_denied), or
// data over its max_publication_bytes (limit_exceeded). nullopt: it may.
[[nodiscard]] std::optional<protocol::BrokerError> publish_refusal(
    const Options& options, const std::optional<auth::Claims>& claims, std::string_view user,
    const std::string& room, std::size_t data_bytes);

}  // namespace herald::gateway::client
