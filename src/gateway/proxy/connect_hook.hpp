// The connect hook's two ends: the request heraldd POSTs for a connect
// without a token, and the backend's result read into a ConnectGrant.
//
// The request carries what the backend needs to recognise a browser's
// session without Herald knowing how sessions work: the headers of the
// HTTP upgrade listed in proxy.forward_headers (a session cookie, a bearer
// token, the address a front proxy saw) and X-Forwarded-For. Herald adds
// the client's address to X-Forwarded-For itself, after whatever the client
// sent: the last entry is the one the backend can trust, as with any proxy.
//
// The result is checked whole before any of it is used: a result naming no
// user, or a room that is not a valid room name, is a bad answer (error 116),
// never a connection with half an identity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gateway/http/router.hpp"

namespace herald::gateway::proxy {

// proxy.forward_headers split at commas, trimmed, lower-cased; empty
// entries dropped. Header names are case-insensitive (RFC 9110 5.1).
[[nodiscard]] std::vector<std::string> parse_header_list(std::string_view list);

// The "headers" object: each listed header the request has (its name as
// listed, lower-case), then "x-forwarded-for" with `peer` appended.
[[nodiscard]] std::string forwarded_headers_json(const http::HttpRequest& request,
                                                 const std::vector<std::string>& names,
                                                 std::string_view peer);

// {"client","transport":"websocket","protocol":"json","headers":{..},"data"?}
// `data_json` is valid JSON (the command parser re-serialized it) or empty.
[[nodiscard]] std::string connect_request_json(std::string_view client,
                                               std::string_view headers_json,
                                               std::string_view data_json);

// What a connect result grants: {"user", "info"?, "expire_at"?, "data"?,
// "rooms"?}. info and data are compact JSON (empty when absent).
struct ConnectGrant {
  std::string user;  // 1..64 bytes, as a dev-mode name
  std::string info_json;
  std::optional<std::int64_t> expire_at;  // Unix seconds
  std::string data_json;
  std::vector<std::string> rooms;  // server-side subscriptions
  std::string meta_json;           // "meta": the connection's, for its hooks (any JSON)
};

// Reads the value of a connect answer's "result"; a string says what is
// wrong with it.
[[nodiscard]] std::variant<ConnectGrant, std::string> read_connect_result(
    std::string_view result_json);

}  // namespace herald::gateway::proxy
