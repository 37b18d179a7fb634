// The identity rule: who a client is, decided the same way whichever
// transport it came by (a WebSocket connect, an SSE stream, an HTTP
// publish), so a user is the same user when a client falls back from one to
// another.
//
//  1. A token (a JWT, auth/token.hpp) wins: it must verify against the
//     server's key, and its sub names the user; its rooms and exp apply.
//  2. Without one, the connect hook (proxy.connect_url) decides, where the
//     transport can ask it (it answers a connect command's data, which an
//     HTTP client has no way to send: those clients need a token).
//  3. Otherwise, in dev mode only, the user the client names, 1 to 64
//     bytes (protocol/user_name.hpp).
//  4. Otherwise a token is required.
//
// The decision is a value; each transport words a refusal with its own
// field names (connect.token, Authorization: Bearer) and acts on it as its
// wire does (an error reply and a close, a 401).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "gateway/auth/token.hpp"

namespace herald::gateway::client {

struct CoreContext;

struct Identity {
  std::string user;
  std::optional<auth::Claims> claims;  // with a token
};

// Rule 2: the transport is to ask the connect hook.
struct AskConnectHook {};

struct IdentityRefusal {
  enum class Why : std::uint8_t {
    no_token_key,     // a token, and the server has no key to verify it
    token_expired,    // a token past its exp
    token_invalid,    // a token that does not verify (detail says how)
    key_pending,      // its kid's key is being fetched (auth.jwks_url): retry
    hook_needs_data,  // no token, a connect hook, and a transport that cannot ask it
    bad_user,         // dev mode, and no user name of 1 to 64 bytes
    token_required,   // no token, no hook, not dev mode
  };
  Why why;
  std::string detail;  // the token's error (auth::describe), or empty
};

using IdentityDecision = std::variant<Identity, AskConnectHook, IdentityRefusal>;

// `token`: the client's token, or empty; `user`: the name it gave for dev
// mode, or empty; `can_ask_hook`: whether this transport can carry the
// connect hook's request.
[[nodiscard]] IdentityDecision decide_identity(const CoreContext& core, std::string_view token,
                                               std::string_view user, bool can_ask_hook);

// The message for a refusal that names no transport field (the key, the
// token's own error); empty for the others, which the transport words.
[[nodiscard]] std::string_view token_key_missing_message();

}  // namespace herald::gateway::client
