#include "gateway/sse/client_identity.hpp"

#include "gateway/client/identity.hpp"
#include "gateway/protocol/user_name.hpp"

namespace herald::gateway::sse {
namespace beast_http = boost::beast::http;

namespace {

http::HttpResponse unauthorized(const http::HttpRequest& request, std::string_view code,
                                std::string_view message) {
  http::HttpResponse res =
      http::make_error_response(beast_http::status::unauthorized, code, message, request.version());
  res.set(beast_http::field::www_authenticate, "Bearer");
  return res;
}

}  // namespace

std::variant<ClientIdentity, http::HttpResponse> read_client_identity(
    const http::HttpRequest& request, const http::QueryParams& query, const ServerState& state) {
  std::string token;
  const std::string_view header = request[beast_http::field::authorization];
  if (!header.empty()) {
    constexpr std::string_view kBearer = "Bearer ";
    if (!header.starts_with(kBearer)) {
      return unauthorized(request, "unauthorized",
                          "the Authorization header must be 'Bearer <token>'");
    }
    token = header.substr(kBearer.size());
  } else {
    token = http::query_value(query, "token");
  }
  auto decision = client::decide_identity(state, token, http::query_value(query, "user"), false);
  if (auto* identity = std::get_if<client::Identity>(&decision)) return std::move(*identity);
  using Why = client::IdentityRefusal::Why;
  const auto& refused = std::get<client::IdentityRefusal>(decision);
  switch (refused.why) {
    case Why::no_token_key:
      return unauthorized(request, "unauthorized", client::token_key_missing_message());
    case Why::token_expired:
      return unauthorized(request, "token_expired", "token: " + refused.detail);
    case Why::token_invalid:
      return unauthorized(request, "unauthorized", "token: " + refused.detail);
    case Why::key_pending: {
      // Temporary: a 503 with Retry-After says try again (the token may
      // verify in a moment), where a 401 says the token is bad.
      http::HttpResponse res =
          http::make_error_response(beast_http::status::service_unavailable, "unavailable",
                                    "token: " + refused.detail, request.version());
      res.set(beast_http::field::retry_after, "1");
      return res;
    }
    case Why::hook_needs_data:
      return unauthorized(request, "unauthorized",
                          "a token is required (Authorization: Bearer or token=): the connect "
                          "hook answers WebSocket connects only");
    case Why::bad_user:
      return unauthorized(
          request, "unauthorized",
          "dev mode needs user=<name> (" + protocol::user_name_rule() + ") or a token");
    case Why::token_required:
      break;
  }
  return unauthorized(request, "unauthorized",
                      "a token is required (Authorization: Bearer <token>, or token=<token>)");
}

}  // namespace herald::gateway::sse
