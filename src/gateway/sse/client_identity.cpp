#include "gateway/sse/client_identity.hpp"

#include "core/time/unix_clock.hpp"

namespace herald::gateway::sse {
namespace http = boost::beast::http;

namespace {

HttpResponse unauthorized(const HttpRequest& request, std::string_view code,
                          std::string_view message) {
  HttpResponse res =
      make_error_response(http::status::unauthorized, code, message, request.version());
  res.set(http::field::www_authenticate, "Bearer");
  return res;
}

}  // namespace

std::variant<ClientIdentity, HttpResponse> read_client_identity(const HttpRequest& request,
                                                                const QueryParams& query,
                                                                const detail::ServerState& state) {
  std::string token;
  const std::string_view header = request[http::field::authorization];
  if (!header.empty()) {
    constexpr std::string_view kBearer = "Bearer ";
    if (!header.starts_with(kBearer)) {
      return unauthorized(request, "unauthorized",
                          "the Authorization header must be 'Bearer <token>'");
    }
    token = header.substr(kBearer.size());
  } else {
    token = query_value(query, "token");
  }
  if (!token.empty()) {
    if (!state.verifier) {
      return unauthorized(request, "unauthorized",
                          "this server has no token key (auth.hmac_secret or "
                          "auth.rsa_public_key_file); tokens cannot be verified");
    }
    auth::VerifyResult r = state.verifier->verify(token, unix_now());
    if (auto* e = std::get_if<auth::TokenError>(&r)) {
      return unauthorized(request,
                          *e == auth::TokenError::expired ? "token_expired" : "unauthorized",
                          "token: " + std::string(auth::describe(*e)));
    }
    ClientIdentity id;
    id.claims = std::get<auth::Claims>(std::move(r));
    id.user = id.claims->user;
    return id;
  }
  if (state.hooks[proxy::HookKind::connect]) {
    return unauthorized(request, "unauthorized",
                        "a token is required (Authorization: Bearer or token=): the connect "
                        "hook answers WebSocket connects only");
  }
  if (state.dev_mode) {
    std::string user = query_value(query, "user");
    if (user.empty() || user.size() > 64) {
      return unauthorized(request, "unauthorized",
                          "dev mode needs user=<name> (1 to 64 bytes) or a token");
    }
    return ClientIdentity{std::move(user), std::nullopt};
  }
  return unauthorized(request, "unauthorized",
                      "a token is required (Authorization: Bearer <token>, or token=<token>)");
}

}  // namespace herald::gateway::sse
