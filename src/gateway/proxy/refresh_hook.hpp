// The refresh hook's two ends. A connection has an expiry when its token
// has `exp` or the connect hook gave `expire_at`; with proxy.refresh_url
// set, reaching it asks the backend instead of closing at once, so that a
// session the application still honours outlives any fixed lifetime, and
// one it revoked ends within one expiry period without a token to
// re-mint.
//
// The request carries the identity and the same upgrade headers the
// connect hook saw (the session cookie is what the backend checks). The
// answer either moves the expiry (`expire_at`, Unix seconds, later than
// now) or ends the connection (`expired: true`, or an `expire_at` already
// past: both close with 3003). A backend that cannot be asked is asked
// again later (client/session_expiry.hpp backs off): a refresh failing is
// no reason to drop a client its application never refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace herald::gateway::proxy {

// {"client","user","headers":{...},"meta"?}; `headers_json` as
// connect_hook.hpp's forwarded_headers_json made it at the upgrade,
// `meta_json` the connection's meta (request_meta.hpp).
[[nodiscard]] std::string refresh_request_json(std::string_view client, std::string_view user,
                                               std::string_view headers_json,
                                               std::string_view meta_json);

// A refresh result: {"expire_at": Unix seconds} or {"expired": true}.
struct RefreshGrant {
  std::optional<std::int64_t> expire_at;  // empty: expired
};
[[nodiscard]] std::variant<RefreshGrant, std::string> read_refresh_result(
    std::string_view result_json);

}  // namespace herald::gateway::proxy
