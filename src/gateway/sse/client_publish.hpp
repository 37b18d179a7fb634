// POST /sse/publish: the sending half of the SSE fallback. A client that
// reads its rooms over an event stream (sse/sse_session.hpp) publishes
// with one HTTP request each:
//
//   POST /sse/publish[?user=U | ?token=T]
//   Authorization: Bearer T            (instead of token=)
//   Content-Type: application/json
//   {"room":"chat:lobby","data":{...}}
//
// answered {"result":{"offset":N,"epoch":"E"}} (or {} outside the stream)
// or an error body with the status its code maps to. The request is one
// publish command of a client of the core (client/client.hpp) that lives as
// long as the request: the checks (client/publish_checks.hpp), moderation
// (the broker is the moderating one), the publisher's info and the answer
// are those of a WebSocket publish, decided in one place. What differs is
// said to the core, not written here: client.publish_rate is kept per user
// (an HTTP request has no connection to keep it on; limits/user_rates.hpp),
// and the backend hooks are not asked, so a namespace with publish_proxy
// is refused (404 not_available).
#pragma once

#include "gateway/http/router.hpp"
#include "gateway/server_state.hpp"

namespace herald::gateway::sse {

// Adds the route. Before the server starts.
void register_client_publish(http::HttpRouter& router, ServerState& state);

}  // namespace herald::gateway::sse
