// Who an HTTP client is (an SSE stream, a publish over HTTP): the same
// rules as a WebSocket connect, read from the request instead of a connect
// command, so a client is the same user whichever transport it falls back
// to.
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
#include "gateway/detail/server_state.hpp"
#include "gateway/http_query.hpp"
#include "gateway/http_router.hpp"

namespace herald::gateway::sse {

struct ClientIdentity {
  std::string user;
  std::optional<auth::Claims> claims;  // with a token; its rooms and expiry apply
};

// The client's identity, or the response that refuses it (401, with the
// JSON error body naming what is missing or wrong).
[[nodiscard]] std::variant<ClientIdentity, HttpResponse> read_client_identity(
    const HttpRequest& request, const QueryParams& query, const detail::ServerState& state);

}  // namespace herald::gateway::sse
