// Which web pages may talk to this server. A browser lets any page open a
// WebSocket to any host and POST to any URL; the only thing it adds that the
// server can trust is the `Origin` header, naming the page that asked. So
// every request that carries one is checked here, before it is upgraded or
// routed: without this, a page a developer visits could open a WebSocket to
// a dev-mode heraldd on 127.0.0.1 as any user, or flush a dictionary.
//
// The rules, in order:
//   1. Dev mode only: the request must be addressed (its `Host`) to a
//      loopback name (localhost, 127.x.y.z, [::1]) or to the host of a listed
//      origin; `*` does not count here. This is what stops DNS rebinding: a page at evil.example
//      whose name is re-pointed at 127.0.0.1 is, to the browser, same-origin with the server and
//      sends no Origin on a GET; only its Host gives it away.
//   2. No `Origin`: allowed. Browsers send Origin on every WebSocket upgrade
//      and every cross-origin request; its absence means a non-browser
//      client (curl, a backend, a test), which the API key and tokens guard.
//   3. `server.allowed_origins` contains `*`, or the Origin itself.
//   4. The Origin is the server's own (its host and port are the request's
//      `Host`): the web app heraldd serves.
//   5. Dev mode only: a loopback origin (a local dev server on any port).
//   Anything else is refused; the caller answers 403 with the reason.
//
// Origins are compared as browsers serialize them (RFC 6454): lower-case
// scheme and host, the port only when not the scheme's default. Entries of
// the list are normalized the same way, so "HTTPS://Chat.Example.com:443/"
// lists "https://chat.example.com".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace herald::gateway::http {

// Whether a host names this machine's loopback interface: "localhost" (and
// names under it, which browsers resolve locally), or an IP literal in
// 127.0.0.0/8 or ::1 (with or without the brackets of a URL). Any other
// name, even one that starts "127.", is not. Case-insensitive.
[[nodiscard]] bool is_loopback_host(std::string_view host);

class OriginPolicy {
 public:
  // An origin as browsers send it: scheme, host (lower case, brackets kept
  // for IPv6) and port (the scheme's default when not written).
  struct Origin {
    std::string scheme;
    std::string host;
    unsigned port = 0;
    friend bool operator==(const Origin&, const Origin&) = default;
  };

  // `allowed` is the value of server.allowed_origins: origins separated by
  // commas or spaces, or "*". Throws std::runtime_error (a configuration
  // error, which stops start-up) naming an entry that is not an origin.
  OriginPolicy(std::string_view allowed, bool dev_mode);

  struct Refusal {
    std::string_view code;  // "host_not_allowed" (rule 1) or "origin_not_allowed"
    std::string message;    // names the header and the setting that would allow it
  };
  // Why a request with these headers (empty when absent) is refused, or
  // nullopt when it may proceed.
  [[nodiscard]] std::optional<Refusal> refusal(std::string_view origin,
                                               std::string_view host) const;

  // "scheme://host[:port]" parsed; nullopt when it is not an origin (a path,
  // no scheme, a bad port, "null").
  [[nodiscard]] static std::optional<Origin> parse_origin(std::string_view text);

 private:
  [[nodiscard]] bool host_allowed(std::string_view host) const;
  [[nodiscard]] bool origin_allowed(const Origin& origin, std::string_view host) const;

  std::vector<Origin> allowed_;
  bool any_ = false;  // "*" listed
  bool dev_mode_ = false;
};

}  // namespace herald::gateway::http
