// The two shapes the server API speaks at the same paths: Herald's own
// (docs/protocol.md#server-api) and Centrifugo's (docs/centrifugo.md), so
// a backend written for either works unchanged.
//
// A request says which it speaks by its body, not by a header both may
// send: Centrifugo's name the room "channel" (one) or "channels" (several)
// where Herald's say "room" and "rooms"; a body naming neither is Herald's
// (disconnect, whose only field both share; Herald's answer there is a
// superset of Centrifugo's empty one). A method only Centrifugo has (batch)
// is always Centrifugo's. The request is then read with the dialect's
// field names and answered in its shape:
//   - Herald's: {"result":R}, or an HTTP status that says the cause with
//     {"error":{"code":"<name>","message":M}};
//   - Centrifugo's: HTTP 200 both ways, {"result":R} or
//     {"error":{"code":<number>,"message":M}} with the number its SDKs and
//     API clients know (codec/centrifugo_codes.hpp, the same map as its
//     client protocol's); or, when the request asks with
//     "X-Centrifugo-Error-Mode: transport", the error alone,
//     {"code":N,"message":M}, under the HTTP status Centrifugo gives N.
// What both shapes answer alike (a publish's position, a disconnect) is
// written once, by the method; the dialect writes only what differs.
#pragma once

#include <boost/beast/http/status.hpp>
#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/http/router.hpp"
#include "gateway/protocol/requests.hpp"

namespace herald::gateway::api {

// A refused request, in both shapes' terms: Herald's answers with
// `status`, Centrifugo's with 200 and the code's number.
struct ApiError {
  protocol::ErrorCode code;
  std::string message;
  boost::beast::http::status status;
};
// A broker's (or a check's) error, with the status its code maps to (429
// limit_exceeded, 404 not_available, 422 moderation_rejected, 503
// unavailable and too_many_rooms, 500 internal, else 400).
[[nodiscard]] ApiError api_error(const protocol::BrokerError& e);
// A malformed or missing field: 400 bad_request.
[[nodiscard]] ApiError bad_request(std::string message);

class ApiDialect {
 public:
  virtual ~ApiDialect() = default;
  // The body fields naming one room and several.
  [[nodiscard]] virtual std::string_view room_field() const = 0;
  [[nodiscard]] virtual std::string_view rooms_field() const = 0;
  // A refusal as the dialect answers it.
  [[nodiscard]] virtual http::HttpResponse error_response(const ApiError& e) const = 0;
  // One room's entry in a broadcast's "responses": its position, or why
  // the broker refused it.
  [[nodiscard]] virtual std::string broadcast_entry(std::string_view room,
                                                    const protocol::PublishResult& r) const = 0;
  // History's "limit" field as the request's limit (nullopt: no limit);
  // false with `error` set when it is malformed.
  virtual bool history_limit(simdjson::dom::object body, std::optional<std::uint32_t>& limit,
                             std::string& error) const = 0;
  [[nodiscard]] virtual std::string history(const protocol::HistoryResult& r) const = 0;
  [[nodiscard]] virtual std::string presence(const protocol::PresenceResult& r) const = 0;
  [[nodiscard]] virtual std::string presence_stats(const protocol::PresenceResult& r) const = 0;
};

// Centrifugo's Error object, {"code":<number>,"message":M}: alone in the
// transport error mode's answer, else under "error" (below).
[[nodiscard]] std::string centrifugo_error_object(const ApiError& e);
// {"error":<that object>}: a refused entry of a broadcast, a batch or /api's
// lines, and the default error mode's whole answer.
[[nodiscard]] std::string centrifugo_error_reply(const ApiError& e);

[[nodiscard]] const ApiDialect& herald_dialect();
// `transport_errors`: Centrifugo's transport error mode (above).
[[nodiscard]] const ApiDialect& centrifugo_dialect(bool transport_errors = false);
// The dialect a request speaks (above): by its body, and for Centrifugo's
// the error mode its header asks.
[[nodiscard]] const ApiDialect& dialect_of(simdjson::dom::object body,
                                           const http::HttpRequest& request);

}  // namespace herald::gateway::api
