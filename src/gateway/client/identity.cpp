#include "gateway/client/identity.hpp"

#include "core/time/unix_clock.hpp"
#include "gateway/client/context.hpp"
#include "gateway/protocol/user_name.hpp"

namespace herald::gateway::client {

IdentityDecision decide_identity(const CoreContext& core, std::string_view token,
                                 std::string_view user, bool can_ask_hook) {
  using Why = IdentityRefusal::Why;
  if (!token.empty()) {
    if (!core.verifier) return IdentityRefusal{Why::no_token_key, {}};
    auth::VerifyResult r = core.verifier->verify(token, unix_now());
    if (auto* e = std::get_if<auth::TokenError>(&r)) {
      const Why why = *e == auth::TokenError::expired       ? Why::token_expired
                      : *e == auth::TokenError::key_pending ? Why::key_pending
                                                            : Why::token_invalid;
      return IdentityRefusal{why, std::string(auth::describe(*e))};
    }
    Identity id;
    id.claims = std::get<auth::Claims>(std::move(r));
    id.user = id.claims->user;
    return id;
  }
  if (core.hooks[proxy::HookKind::connect]) {
    if (can_ask_hook) return AskConnectHook{};
    return IdentityRefusal{Why::hook_needs_data, {}};
  }
  if (core.dev_mode) {
    if (!protocol::valid_user_name(user)) return IdentityRefusal{Why::bad_user, {}};
    return Identity{std::string(user), std::nullopt};
  }
  return IdentityRefusal{Why::token_required, {}};
}

std::string_view token_key_missing_message() {
  return "this server has no token key (auth.hmac_secret or auth.rsa_public_key_file); "
         "tokens cannot be verified";
}

}  // namespace herald::gateway::client
