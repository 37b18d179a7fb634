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
// or an error body with the status its code maps to. The publication goes
// through the same checks as a WebSocket publish (client/publish_checks.hpp: the
// room, the token's rooms, the namespace's publish and
// max_publication_bytes), the same moderation (the broker is the
// moderating one) and client.publish_rate, kept per user (an HTTP request
// has no connection to keep it on; limits/user_rates.hpp). Namespaces with
// publish_proxy (the publish hook) are not served here yet: 404
// not_available says so.
#pragma once

#include "gateway/http/router.hpp"
#include "gateway/server_state.hpp"

namespace herald::gateway::sse {

// Adds the route. Before the server starts.
void register_client_publish(HttpRouter& router, ServerState& state);

}  // namespace herald::gateway::sse
