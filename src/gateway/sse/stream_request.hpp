// What a GET /sse asks for, read and checked before the response starts, so
// that everything wrong with the request is an HTTP error (400, 401, 403)
// and not an event on a stream that has begun:
//
//   GET /sse?room=R[&room=R2...][&user=U | &token=T][&last_event_id=ID]
//   Authorization: Bearer T        (instead of token=)
//   Last-Event-ID: ID              (wins over last_event_id=)
//
// Rooms: 1 to client.max_subscriptions distinct valid names, each allowed
// by the token's rooms claim. The id (sse/stream_id.hpp) gives where to
// resume; positions for rooms not requested are ignored (the client may
// have dropped a room), requested rooms it does not name start fresh.
// last_event_id= exists for clients that open a new EventSource themselves
// (an EventSource sends Last-Event-ID only on its own reconnects).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "gateway/http/router.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/server_state.hpp"
#include "gateway/sse/client_identity.hpp"

namespace herald::gateway::sse {

struct StreamRequest {
  ClientIdentity identity;
  std::vector<std::string> rooms;  // in the request's order, distinct
  protocol::RoomPositions since;   // where to resume, for some of `rooms`
};

// Whether `request` is for the event stream's path (/sse); the others are
// routed as usual.
[[nodiscard]] bool is_stream_request(const http::HttpRequest& request);

// The checked request, or the error response that refuses it (405 for a
// method other than GET).
[[nodiscard]] std::variant<StreamRequest, http::HttpResponse> read_stream_request(
    const http::HttpRequest& request, const ServerState& state);

}  // namespace herald::gateway::sse
