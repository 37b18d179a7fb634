#include "gateway/api/api_dialect.hpp"

#include <boost/beast/core/string.hpp>

#include <limits>

#include "core/json.hpp"
#include "gateway/codec/centrifugo_codes.hpp"
#include "gateway/codec/centrifugo_results.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"

namespace herald::gateway::api {
namespace beast_http = boost::beast::http;
namespace dom = simdjson::dom;

ApiError api_error(const protocol::BrokerError& e) {
  using protocol::ErrorCode;
  beast_http::status status = beast_http::status::bad_request;
  if (e.code == ErrorCode::limit_exceeded) status = beast_http::status::too_many_requests;
  if (e.code == ErrorCode::not_available) status = beast_http::status::not_found;
  if (e.code == ErrorCode::internal) status = beast_http::status::internal_server_error;
  if (e.code == ErrorCode::moderation_rejected) status = beast_http::status::unprocessable_entity;
  if (e.code == ErrorCode::unavailable || e.code == ErrorCode::too_many_rooms)
    status = beast_http::status::service_unavailable;
  return {e.code, e.message, status};
}

ApiError bad_request(std::string message) {
  return {protocol::ErrorCode::bad_request, std::move(message), beast_http::status::bad_request};
}

std::string centrifugo_error_object(const ApiError& e) {
  std::string out =
      "{\"code\":" + std::to_string(codec::centrifugo::error_for(e.code).code) + ",\"message\":";
  json::append_string(out, e.message);
  return out + '}';
}

std::string centrifugo_error_reply(const ApiError& e) {
  return "{\"error\":" + centrifugo_error_object(e) + '}';
}

namespace {

class HeraldDialect final : public ApiDialect {
 public:
  std::string_view room_field() const override { return "room"; }
  std::string_view rooms_field() const override { return "rooms"; }
  http::HttpResponse error_response(const ApiError& e) const override {
    return http::make_error_response(e.status, protocol::error_name(e.code), e.message);
  }
  // {"room":R,<the position's or the error's fields>}; {"room":R} alone for
  // a publication outside the stream.
  std::string broadcast_entry(std::string_view room,
                              const protocol::PublishResult& r) const override {
    std::string part = "{\"room\":";
    json::append_string(part, room);
    const std::string fields = r.error
                                   ? protocol::encode_error_object(r.error->code, r.error->message)
                                   : protocol::publish_result(r);
    part += fields.size() > 2 ? "," + fields.substr(1) : "}";
    return part;
  }
  // Absent: every publication kept.
  bool history_limit(dom::object body, std::optional<std::uint32_t>& limit,
                     std::string& error) const override {
    dom::element e;
    if (body["limit"].get(e) != simdjson::SUCCESS) return true;
    std::uint64_t n = 0;
    if (e.get(n) != simdjson::SUCCESS) {
      error = "limit: expected an unsigned integer";
      return false;
    }
    // Safety: clamped to the type's range first.
    limit = static_cast<std::uint32_t>(std::min<std::uint64_t>(n, UINT32_MAX));
    return true;
  }
  std::string history(const protocol::HistoryResult& r) const override {
    return protocol::history_result(r);
  }
  std::string presence(const protocol::PresenceResult& r) const override {
    return protocol::presence_result(r);
  }
  std::string presence_stats(const protocol::PresenceResult& r) const override {
    return protocol::presence_stats_result(r);
  }
};

// The HTTP status Centrifugo's transport error mode gives a code (its
// apiproto.MapErrorToHTTPCode): 500 for any it does not list.
beast_http::status centrifugo_http_status(std::uint32_t code) {
  switch (code) {
    case 102:  // unknown channel
    case 104:  // not found
      return beast_http::status::not_found;
    case 107:  // bad request
    case 108:  // not available
      return beast_http::status::bad_request;
    case 112:  // unrecoverable position
      return beast_http::status::range_not_satisfiable;
    case 113:  // conflict
      return beast_http::status::conflict;
    default:
      return beast_http::status::internal_server_error;
  }
}

class CentrifugoDialect final : public ApiDialect {
 public:
  explicit CentrifugoDialect(bool transport_errors) : transport_errors_(transport_errors) {}
  std::string_view room_field() const override { return "channel"; }
  std::string_view rooms_field() const override { return "channels"; }
  // Centrifugo's default error mode: the HTTP exchange succeeded, the
  // error is in the body, where its clients read it.
  http::HttpResponse error_response(const ApiError& e) const override {
    if (transport_errors_) {
      return http::make_text_response(
          centrifugo_http_status(codec::centrifugo::error_for(e.code).code),
          centrifugo_error_object(e) + "\n", "application/json", 11);
    }
    return http::make_text_response(beast_http::status::ok, centrifugo_error_reply(e) + "\n",
                                    "application/json", 11);
  }
  // {"result":{"offset":N,"epoch":E}} or {"error":{..}}: a PublishResponse.
  std::string broadcast_entry(std::string_view /*room*/,
                              const protocol::PublishResult& r) const override {
    if (r.error) return centrifugo_error_reply(api_error(*r.error));
    return "{\"result\":" + protocol::publish_result(r) + '}';
  }
  // Centrifugo's: absent or 0 the position only, -1 everything kept.
  bool history_limit(dom::object body, std::optional<std::uint32_t>& limit,
                     std::string& error) const override {
    dom::element e;
    std::optional<std::int64_t> given;
    if (body["limit"].get(e) == simdjson::SUCCESS) {
      std::int64_t n = 0;
      if (e.get(n) != simdjson::SUCCESS || n < -1 || n > std::numeric_limits<std::int32_t>::max()) {
        error = "limit: expected an integer from -1 to 2147483647";
        return false;
      }
      given = n;
    }
    limit = codec::centrifugo::history_limit(given);
    return true;
  }
  std::string history(const protocol::HistoryResult& r) const override {
    return codec::centrifugo::history_result(r);
  }
  std::string presence(const protocol::PresenceResult& r) const override {
    return codec::centrifugo::presence_result(r);
  }
  std::string presence_stats(const protocol::PresenceResult& r) const override {
    return codec::centrifugo::presence_stats_result(r);
  }

 private:
  bool transport_errors_;
};

}  // namespace

const ApiDialect& herald_dialect() {
  static const HeraldDialect dialect;
  return dialect;
}

const ApiDialect& centrifugo_dialect(bool transport_errors) {
  static const CentrifugoDialect in_body(false);
  static const CentrifugoDialect in_status(true);
  return transport_errors ? in_status : in_body;
}

const ApiDialect& dialect_of(dom::object body, const http::HttpRequest& request) {
  dom::element e;
  if (body["channel"].get(e) != simdjson::SUCCESS && body["channels"].get(e) != simdjson::SUCCESS)
    return herald_dialect();
  const auto mode = request.find("X-Centrifugo-Error-Mode");
  return centrifugo_dialect(mode != request.end() &&
                            boost::beast::iequals(mode->value(), "transport"));
}

}  // namespace herald::gateway::api
