#include "gateway/sse/client_publish.hpp"

#include <simdjson.h>

#include "gateway/api/http_api.hpp"
#include "gateway/api/json_body.hpp"
#include "gateway/client/client_id.hpp"
#include "gateway/client/publish_checks.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/sse/client_identity.hpp"

namespace herald::gateway::sse {
namespace http = boost::beast::http;
using protocol::ErrorCode;

namespace {

// A check's refusal as HTTP: the statuses a client's error deserves (the
// broker's mapping serves the rest).
HttpResponse refusal(const BrokerError& e) {
  switch (e.code) {
    case ErrorCode::permission_denied:
      return make_error_response(http::status::forbidden, protocol::error_name(e.code), e.message);
    case ErrorCode::limit_exceeded:
      return make_error_response(http::status::payload_too_large, protocol::error_name(e.code),
                                 e.message);
    case ErrorCode::too_many_requests:
      return make_error_response(http::status::too_many_requests, protocol::error_name(e.code),
                                 e.message);
    default:
      return broker_error(e);
  }
}

}  // namespace

void register_client_publish(HttpRouter& router, ServerState& state) {
  router.add_async(
      http::verb::post, "/sse/publish",
      [&state](const HttpRequest& req, unsigned shard, HttpRouter::Respond respond) {
        if (!admit_json_body(req, respond)) return;
        auto query = parse_query(req.target());
        if (auto* err = std::get_if<std::string>(&query)) {
          return respond(make_error_response(http::status::bad_request, "bad_request", *err));
        }
        auto who = read_client_identity(req, std::get<QueryParams>(query), state);
        if (auto* refused = std::get_if<HttpResponse>(&who)) return respond(std::move(*refused));
        const ClientIdentity& identity = std::get<ClientIdentity>(who);

        simdjson::dom::parser parser;
        std::string_view room;
        simdjson::dom::element data;
        auto parsed = parse_json_object(parser, req.body());
        if (!parsed) {
          return respond(
              make_error_response(http::status::bad_request, "bad_request", parsed.error()));
        }
        simdjson::dom::object body = *parsed;
        if (body["room"].get(room) != simdjson::SUCCESS) {
          return respond(make_error_response(http::status::bad_request, "bad_request",
                                             "room: expected a string"));
        }
        if (body["data"].get(data) != simdjson::SUCCESS) {
          return respond(make_error_response(http::status::bad_request, "bad_request",
                                             "data: expected a JSON value"));
        }
        PublishRequest publication{std::string(room), simdjson::minify(data), {}};
        if (auto refused = publish_refusal(state.options, identity.claims, publication.room,
                                           publication.data_json.size())) {
          return respond(refusal(*refused));
        }
        if (!state.http_publish_rates.take(identity.user, steady_now_ns())) {
          const std::uint32_t rate = state.http_publish_rates.rate();
          return respond(refusal(
              {ErrorCode::too_many_requests, "over client.publish_rate (" + std::to_string(rate) +
                                                 "/s, burst " + std::to_string(rate) + ")"}));
        }
        if (state.options.room_options(publication.room).publish_proxy) {
          return respond(refusal({ErrorCode::not_available,
                                  "room '" + publication.room +
                                      "' needs the publish hook (publish_proxy), which HTTP "
                                      "publishes do not ask yet: publish over a WebSocket"}));
        }
        publication.info_json = protocol::encode_client_info(identity.user, random_client_id());
        state.broker->publish(
            shard, std::move(publication), [respond = std::move(respond)](PublishResult r) {
              if (r.error) return respond(broker_error(*r.error));
              respond(make_text_response(http::status::ok,
                                         "{\"result\":" + protocol::publish_result(r) + "}\n",
                                         "application/json", 11));
            });
      });
}

}  // namespace herald::gateway::sse
