// The server API: HTTP endpoints a backend calls to publish and inspect
// rooms. POST with a JSON body, authorized by "Authorization: apikey KEY"
// or "X-API-Key: KEY" (api.key). Replies are {"result":{...}} or
// {"error":{"code","message"}} with a matching HTTP status
// (docs/protocol.md documents every endpoint); a body in Centrifugo's
// shape is read and answered in Centrifugo's (api_dialect.hpp,
// docs/centrifugo.md), as are its batch and its line-per-command /api.
#pragma once

#include <string>
#include <string_view>

#include "gateway/api/api_action.hpp"
#include "gateway/http/router.hpp"
#include "gateway/server_state.hpp"

namespace herald::gateway::api {

void register_api(http::HttpRouter& router, ServerState& state);

// The API key check (of /api/* through admit_api_request, and of /metrics
// with metrics.require_key): true when the request may proceed; otherwise
// it has answered 401 (wrong key) or 403 (API off).
bool api_authorized(const ServerState& state, const http::HttpRequest& req,
                    http::HttpRouter::Respond& respond);

// What every /api/* route checks before reading the request: a POST's body
// is JSON (admit_json_body), then the API key (api_authorized). True when
// the request may proceed; otherwise it has answered.
bool admit_api_request(const ServerState& state, const http::HttpRequest& req,
                       http::HttpRouter::Respond& respond);
// A POST's body is JSON (Content-Type: application/json, or no body and no
// type; else it answers 415 and returns false). A plain HTML form cannot
// send that across origins without a preflight.
bool admit_json_body(const http::HttpRequest& req, http::HttpRouter::Respond& respond);

// 200 with the body {"result":RESULT}, RESULT a JSON value: what every
// /api method answers on success.
[[nodiscard]] http::HttpResponse json_ok(std::string_view result);

// A broker's (or a check's) error as an HTTP response: the status its code
// maps to (429 limit_exceeded, 404 not_available, 422 moderation_rejected,
// 503 unavailable and too_many_rooms, 500 internal, else 400) and the JSON
// error body naming the code.
[[nodiscard]] http::HttpResponse broker_error(const protocol::BrokerError& e);

// `respond` made callable from any thread: the answer is posted to `shard`,
// where `respond` runs and is then cleared. Invariant: an HTTP session is
// released on its own shard (its destructor edits the shard's session set),
// so the session `respond` holds must never be dropped by the thread that
// answered (a store's or the application's); copies of the returned function
// kept by that thread hold only an emptied one. Call it exactly once.
http::HttpRouter::Respond respond_on_shard(ServerState& state, unsigned shard,
                                           http::HttpRouter::Respond respond);

// Serves POST `path` with `action`. Before the server starts.
void register_api_action(http::HttpRouter& router, ServerState& state, std::string path,
                         ApiAction action);

}  // namespace herald::gateway::api
