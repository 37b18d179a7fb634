#include "gateway/sse/client_publish.hpp"

#include <simdjson.h>

#include "gateway/api/http_api.hpp"
#include "gateway/api/json_body.hpp"
#include "gateway/client/client.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/shard_pool.hpp"
#include "gateway/sse/client_identity.hpp"

namespace herald::gateway::sse {
namespace beast_http = boost::beast::http;
using protocol::ErrorCode;

namespace {

// A check's refusal as HTTP: the statuses a client's error deserves (the
// broker's mapping serves the rest).
http::HttpResponse refusal(const protocol::BrokerError& e) {
  switch (e.code) {
    case ErrorCode::permission_denied:
      return http::make_error_response(beast_http::status::forbidden, protocol::error_name(e.code),
                                       e.message);
    case ErrorCode::limit_exceeded:
      return http::make_error_response(beast_http::status::payload_too_large,
                                       protocol::error_name(e.code), e.message);
    case ErrorCode::too_many_requests:
      return http::make_error_response(beast_http::status::too_many_requests,
                                       protocol::error_name(e.code), e.message);
    default:
      return api::broker_error(e);
  }
}

// One HTTP publish as a client of the core (client/client.hpp): opened with
// the request's identity and no rooms, it runs one publish command, so the
// checks, the rate (per user: Setup::publish_rate_per_user), the refusal
// of a namespace that needs the publish hook, the publisher's info and the
// broker's answer are the core's, as for a WebSocket publish. Its Output
// turns the one reply into the HTTP response. Held by the operations in
// flight (the core holds it through start()'s pointer); gone, with its
// client, when the broker has answered.
// An HTTP publish's client: no hooks, its user's publish rate kept over
// every shard, not counted as a connection.
client::Setup publish_setup(ServerState& state) {
  client::Setup setup;
  setup.asks_hooks = false;
  setup.publish_rate_per_user = &state.http_publish_rates;
  setup.in_census = false;
  return setup;
}

class HttpPublish final : public client::Output, public std::enable_shared_from_this<HttpPublish> {
 public:
  HttpPublish(ServerState& state, unsigned shard, http::HttpRouter::Respond respond)
      : respond_(std::move(respond)),
        client_(state, *state.shards[shard], (*state.pool)[shard].ctx.get_executor(), *this,
                publish_setup(state)) {}
  ~HttpPublish() { client_.finish(); }
  HttpPublish(const HttpPublish&) = delete;
  HttpPublish& operator=(const HttpPublish&) = delete;

  void run(client::Identity identity, protocol::PublishCmd publish) {
    client_.start(weak_from_this());
    client_.open(std::move(identity), {}, {});  // answered at once: no rooms
    protocol::Command command{kPublishId, std::move(publish)};
    client_.execute(command);
  }

 private:
  static constexpr std::uint32_t kPublishId = 1;

  void reply(std::uint32_t id, const protocol::Reply& reply) override {
    const auto* published = std::get_if<protocol::PublishReply>(&reply);
    if (id != kPublishId || published == nullptr) return;  // the opening's ConnectReply
    answer(http::make_text_response(
        beast_http::status::ok,
        "{\"result\":" + protocol::publish_result(published->result) + "}\n", "application/json",
        11));
  }
  void reply_error(std::uint32_t /*id*/, ErrorCode code, std::string_view message) override {
    answer(refusal({code, std::string(message)}));
  }
  void push(const std::string& /*room*/, const fanout::MessagePtr& /*message*/) override {}
  // The client was ended before the broker answered (a per-user disconnect
  // through the API, the server's shutdown): the publication's fate is
  // unknown to it, as to a WebSocket client cut off at that moment.
  void disconnect(std::uint16_t /*code*/, std::string_view reason, bool /*reconnect*/) override {
    answer(http::make_error_response(beast_http::status::service_unavailable, "unavailable",
                                     "the publish was cut off (" + std::string(reason) +
                                         "); whether it was published is unknown"));
  }
  void close_now(protocol::DisconnectCode code) override {
    disconnect(0, protocol::disconnect_reason(code), true);
  }

  void answer(http::HttpResponse response) {
    if (!respond_) return;
    auto respond = std::move(respond_);
    respond_ = nullptr;
    respond(std::move(response));
  }

  http::HttpRouter::Respond respond_;
  client::Client client_;
};

}  // namespace

void register_client_publish(http::HttpRouter& router, ServerState& state) {
  router.add_async(
      beast_http::verb::post, "/sse/publish",
      [&state](const http::HttpRequest& req, unsigned shard, http::HttpRouter::Respond respond) {
        if (!api::admit_json_body(req, respond)) return;
        auto query = http::parse_query(req.target());
        if (auto* err = std::get_if<std::string>(&query)) {
          return respond(
              http::make_error_response(beast_http::status::bad_request, "bad_request", *err));
        }
        auto who = read_client_identity(req, std::get<http::QueryParams>(query), state);
        if (auto* refused = std::get_if<http::HttpResponse>(&who))
          return respond(std::move(*refused));

        simdjson::dom::parser parser;
        std::string_view room;
        simdjson::dom::element data;
        auto parsed = api::parse_json_object(parser, req.body());
        if (!parsed) {
          return respond(http::make_error_response(beast_http::status::bad_request, "bad_request",
                                                   parsed.error()));
        }
        simdjson::dom::object body = *parsed;
        if (body["room"].get(room) != simdjson::SUCCESS) {
          return respond(http::make_error_response(beast_http::status::bad_request, "bad_request",
                                                   "room: expected a string"));
        }
        if (body["data"].get(data) != simdjson::SUCCESS) {
          return respond(http::make_error_response(beast_http::status::bad_request, "bad_request",
                                                   "data: expected a JSON value"));
        }
        auto publish = std::make_shared<HttpPublish>(state, shard, std::move(respond));
        publish->run(std::get<ClientIdentity>(std::move(who)),
                     protocol::PublishCmd{std::string(room), simdjson::minify(data)});
      });
}

}  // namespace herald::gateway::sse
