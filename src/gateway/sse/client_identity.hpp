// Who an HTTP client is (an SSE stream, a publish over HTTP): the identity
// rule of every client (client/identity.hpp), read from the request instead
// of a connect command, so a client is the same user whichever transport it
// falls back to.
//
//  - A token (a JWT, auth/token.hpp) in "Authorization: Bearer <token>", or
//    in the query as token=<token> for clients that cannot set a header (a
//    browser's EventSource cannot). The header wins when both are given.
//  - Without a token, in dev mode only: user=<name> (1 to 64 bytes).
//  - Otherwise, or with a token that does not verify: 401.
//
// The connect hook (proxy.connect_url) is not asked: it answers a connect
// command's data, which an HTTP client has no way to send; a server with
// one needs a token from these clients, dev mode or not (as a WebSocket
// connect without a token goes to the hook before dev mode; 401 says so).
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "gateway/auth/token.hpp"
#include "gateway/client/identity.hpp"
#include "gateway/http/query.hpp"
#include "gateway/http/router.hpp"
#include "gateway/server_state.hpp"

namespace herald::gateway::sse {

// Decided by the identity rule (client/identity.hpp), with the connect
// hook never asked.
using ClientIdentity = client::Identity;

// The client's identity, or the response that refuses it (401, with the
// JSON error body naming what is missing or wrong).
[[nodiscard]] std::variant<ClientIdentity, http::HttpResponse> read_client_identity(
    const http::HttpRequest& request, const http::QueryParams& query, const ServerState& state);

}  // namespace herald::gateway::sse
