#include "gateway/proxy/backend_url.hpp"

#include <algorithm>
#include <cctype>

namespace herald::gateway::proxy {

std::variant<BackendUrl, std::string> parse_backend_url(std::string_view key,
                                                        std::string_view text) {
  const auto fail = [&](std::string_view why) {
    return std::string(key) + ": '" + std::string(text) + "' " + std::string(why) +
           " (expected http://host[:port][/path], e.g. http://127.0.0.1:3000/herald/rpc)";
  };
  constexpr std::string_view kHttp = "http://";
  if (text.starts_with("https://")) {
    return fail(
        "is https, which heraldd cannot speak yet (no TLS client): use http:// to a backend on "
        "a trusted network, or a local TLS-terminating proxy");
  }
  if (!text.starts_with(kHttp)) return fail("does not start with http://");
  std::string_view rest = text.substr(kHttp.size());
  const auto slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  BackendUrl url;
  url.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (url.target.front() == '?') url.target.insert(0, "/");
  if (authority.find('@') != std::string_view::npos) return fail("holds credentials");
  url.host_header = std::string(authority);
  std::string_view host = authority;
  std::string_view port;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return fail("has an unclosed [IPv6 address");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return fail("has text after the ]");
      port = after.substr(1);
    }
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return fail("has an IPv6 address without []");
  }
  if (host.empty()) return fail("has no host");
  if (port.empty() && authority.ends_with(':')) return fail("has an empty port");
  if (!port.empty()) {
    if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        })) {
      return fail("has a port that is not a number");
    }
    const unsigned long n = std::stoul(std::string(port));
    if (n == 0 || n > 65535) return fail("has a port outside 1..65535");
  }
  url.host = std::string(host);
  url.port = port.empty() ? "80" : std::string(port);
  return url;
}

}  // namespace herald::gateway::proxy
