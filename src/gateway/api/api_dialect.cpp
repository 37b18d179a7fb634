#include "gateway/api/api_dialect.hpp"

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

class CentrifugoDialect final : public ApiDialect {
 public:
  std::string_view room_field() const override { return "channel"; }
  std::string_view rooms_field() const override { return "channels"; }
  // Centrifugo's default error mode: the HTTP exchange succeeded, the
  // error is in the body, where its clients read it.
  http::HttpResponse error_response(const ApiError& e) const override {
    return http::make_text_response(beast_http::status::ok,
                                    "{\"error\":" + centrifugo_error_object(e) + "}\n",
                                    "application/json", 11);
  }
  // {"result":{"offset":N,"epoch":E}} or {"error":{..}}: a PublishResponse.
  std::string broadcast_entry(std::string_view /*room*/,
                              const protocol::PublishResult& r) const override {
    if (r.error) return "{\"error\":" + centrifugo_error_object(api_error(*r.error)) + '}';
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
};

}  // namespace

const ApiDialect& herald_dialect() {
  static const HeraldDialect dialect;
  return dialect;
}

const ApiDialect& centrifugo_dialect() {
  static const CentrifugoDialect dialect;
  return dialect;
}

const ApiDialect& dialect_of(dom::object body) {
  dom::element e;
  if (body["channel"].get(e) == simdjson::SUCCESS || body["channels"].get(e) == simdjson::SUCCESS)
    return centrifugo_dialect();
  return herald_dialect();
}

}  // namespace herald::gateway::api
