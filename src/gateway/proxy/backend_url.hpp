// A backend hook's address (proxy.*_url), parsed once at start-up so that a
// request only copies strings it already has. http:// only: heraldd has no
// TLS client yet, and sending a user's identity and cookies to an https://
// URL in clear text would be worse than refusing to start.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace herald::gateway::proxy {

struct BackendUrl {
  std::string host;         // a name or an IP literal (IPv6 without brackets)
  std::string port;         // digits; "80" when the URL names none
  std::string target;       // path and query, "/" when the URL names none
  std::string host_header;  // the Host header: host[:port] as the URL wrote it
};

// Parses `text` ("http://host[:port][/path]"); on failure, a message that
// names `key` and says what to write instead.
[[nodiscard]] std::variant<BackendUrl, std::string> parse_backend_url(std::string_view key,
                                                                      std::string_view text);

}  // namespace herald::gateway::proxy
