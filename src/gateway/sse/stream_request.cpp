#include "gateway/sse/stream_request.hpp"

#include <algorithm>

#include "gateway/client/publish_checks.hpp"
#include "gateway/protocol/room_name.hpp"
#include "gateway/sse/stream_id.hpp"

namespace herald::gateway::sse {
namespace beast_http = boost::beast::http;

bool is_stream_request(const http::HttpRequest& request) {
  std::string_view target = request.target();
  return target.substr(0, target.find('?')) == "/sse";
}

std::variant<StreamRequest, http::HttpResponse> read_stream_request(
    const http::HttpRequest& request, const ServerState& state) {
  if (request.method() != beast_http::verb::get) {
    http::HttpResponse res = http::make_error_response(
        beast_http::status::method_not_allowed, "method_not_allowed",
        "method not allowed: " + std::string(request.method_string()) + " /sse (allowed: GET)",
        request.version());
    res.set(beast_http::field::allow, "GET");
    return res;
  }
  const auto bad = [&request](std::string_view code, std::string_view message) {
    return http::make_error_response(beast_http::status::bad_request, code, message,
                                     request.version());
  };
  auto parsed = http::parse_query(request.target());
  if (auto* err = std::get_if<std::string>(&parsed)) return bad("bad_request", "/sse: " + *err);
  const http::QueryParams& query = std::get<http::QueryParams>(parsed);

  auto identity = read_client_identity(request, query, state);
  if (auto* refusal = std::get_if<http::HttpResponse>(&identity)) return std::move(*refusal);
  StreamRequest out{std::get<ClientIdentity>(std::move(identity)), {}, {}};

  const std::uint32_t max_rooms = state.options.client.max_subscriptions;
  for (std::string& room : http::query_values(query, "room")) {
    if (auto refused = client::room_refusal(out.identity.claims, out.identity.user, room)) {
      if (refused->code == protocol::ErrorCode::bad_room) {
        return bad("bad_room", "/sse room: " + refused->message);
      }
      return http::make_error_response(beast_http::status::forbidden,
                                       protocol::error_name(refused->code), refused->message,
                                       request.version());
    }
    if (protocol::is_private_room(room)) {
      // Its subscription token would have to ride in the URL, where logs
      // and Referer headers keep it.
      return http::make_error_response(
          beast_http::status::forbidden,
          protocol::error_name(protocol::ErrorCode::permission_denied),
          "/sse room '" + room +
              "' is private: it is subscribed to with a subscription token, over the WebSocket",
          request.version());
    }
    if (std::ranges::find(out.rooms, room) != out.rooms.end()) {
      return bad("bad_request", "/sse: room '" + room + "' is named twice");
    }
    if (out.rooms.size() == max_rooms) {
      return bad("limit_exceeded", "/sse: more than client.max_subscriptions (" +
                                       std::to_string(max_rooms) + ") rooms");
    }
    out.rooms.push_back(std::move(room));
  }
  if (out.rooms.empty()) return bad("bad_request", "/sse needs at least one room=<name>");

  std::string last_id(request["Last-Event-ID"]);
  if (last_id.empty()) last_id = http::query_value(query, "last_event_id");
  if (!last_id.empty()) {
    auto positions = parse_stream_id(last_id);
    if (auto* err = std::get_if<std::string>(&positions)) return bad("bad_event_id", *err);
    for (auto& [room, position] : std::get<protocol::RoomPositions>(positions)) {
      if (std::ranges::find(out.rooms, room) != out.rooms.end()) {
        out.since.emplace_back(std::move(room), std::move(position));
      }
    }
  }
  return out;
}

}  // namespace herald::gateway::sse
