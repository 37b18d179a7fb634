#include "gateway/http/origin_policy.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <charconv>
#include <locale>
#include <stdexcept>

#include "core/config/values.hpp"

namespace herald::gateway::http {
namespace {

// ASCII lower case (the classic locale): schemes and host names are
// case-insensitive (RFC 3986 section 6.2.2.1).
std::string lower(std::string_view s) {
  return boost::algorithm::to_lower_copy(std::string(s), std::locale::classic());
}

unsigned default_port(std::string_view scheme) {
  return scheme == "https" || scheme == "wss" ? 443 : 80;
}

// "host[:port]" (host may be "[v6]") split; port 0 when not written.
// nullopt when the port is not a number in 1..65535, the host is empty, or
// an unbracketed host holds a colon. (config::parse_endpoint reads the
// same form but requires the port, which Host and Origin leave out.)
struct Authority {
  std::string host;
  unsigned port = 0;
};
std::optional<Authority> parse_authority(std::string_view text) {
  Authority a;
  std::string_view host = text, port;
  if (text.starts_with('[')) {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(0, close + 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
      if (port.empty()) return std::nullopt;
    }
  } else if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (port.empty() || host.find(':') != std::string_view::npos) return std::nullopt;
  }
  if (host.empty() || host.find_first_of("/?#@ \t") != std::string_view::npos) return std::nullopt;
  if (!port.empty()) {
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
    if (ec != std::errc{} || end != port.data() + port.size() || a.port == 0 || a.port > 65535)
      return std::nullopt;
  }
  a.host = lower(host);
  return a;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  const std::string h = lower(host);
  if (h == "localhost" || h.ends_with(".localhost")) return true;
  // Any other name is whatever DNS says it is ("127.0.0.1.evil.example" is
  // an ordinary public name): only an IP literal is known to be loopback.
  std::string_view literal = h;
  if (literal.size() >= 2 && literal.front() == '[' && literal.back() == ']')
    literal = literal.substr(1, literal.size() - 2);
  boost::system::error_code ec;
  const boost::asio::ip::address address = boost::asio::ip::make_address(literal, ec);
  return !ec && address.is_loopback();
}

std::optional<OriginPolicy::Origin> OriginPolicy::parse_origin(std::string_view text) {
  const std::size_t sep = text.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::nullopt;
  Origin o;
  o.scheme = lower(text.substr(0, sep));
  if (o.scheme.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789+-.") != std::string::npos)
    return std::nullopt;
  std::optional<Authority> a = parse_authority(text.substr(sep + 3));
  if (!a) return std::nullopt;
  o.host = std::move(a->host);
  o.port = a->port != 0 ? a->port : default_port(o.scheme);
  return o;
}

OriginPolicy::OriginPolicy(std::string_view allowed, bool dev_mode) : dev_mode_(dev_mode) {
  for (std::string_view item : config::split_list(allowed)) {
    if (item == "*") {
      any_ = true;
      continue;
    }
    // A trailing slash is how an origin is often pasted from an address bar.
    std::string_view text = item;
    if (text.ends_with('/')) text.remove_suffix(1);
    std::optional<Origin> o = parse_origin(text);
    if (!o) {
      throw std::runtime_error("server.allowed_origins: '" + std::string(item) +
                               "' is not an origin: write scheme://host[:port] "
                               "(e.g. https://chat.example.com), or * for any");
    }
    allowed_.push_back(std::move(*o));
  }
}

bool OriginPolicy::host_allowed(std::string_view host) const {
  // "*" is about origins, not hosts: it does not reopen DNS rebinding.
  if (host.empty()) return true;
  std::optional<Authority> a = parse_authority(host);
  if (!a) return false;
  if (is_loopback_host(a->host)) return true;
  return std::any_of(allowed_.begin(), allowed_.end(), [&](const Origin& o) {
    return o.host == a->host && (a->port == 0 || a->port == o.port);
  });
}

bool OriginPolicy::origin_allowed(const Origin& origin, std::string_view host) const {
  if (any_ || std::find(allowed_.begin(), allowed_.end(), origin) != allowed_.end()) return true;
  if (std::optional<Authority> a = parse_authority(host)) {
    // The server's own origin. A Host without a port means the default port
    // of whatever scheme the client used, which the page's scheme tells.
    const unsigned port = a->port != 0 ? a->port : default_port(origin.scheme);
    if (a->host == origin.host && port == origin.port) return true;
  }
  return dev_mode_ && is_loopback_host(origin.host);
}

std::optional<OriginPolicy::Refusal> OriginPolicy::refusal(std::string_view origin,
                                                           std::string_view host) const {
  if (dev_mode_ && !host_allowed(host)) {
    return Refusal{
        "host_not_allowed",
        "Host '" + std::string(host) +
            "' is not a loopback name: dev mode answers only requests addressed to localhost, "
            "127.0.0.1 or [::1] (this stops DNS rebinding); list the origin in "
            "server.allowed_origins, or turn dev mode off (auth.dev_mode)"};
  }
  if (origin.empty()) return std::nullopt;
  std::optional<Origin> o = parse_origin(origin);
  if (o && origin_allowed(*o, host)) return std::nullopt;
  return Refusal{"origin_not_allowed", "Origin '" + std::string(origin) +
                                           "' is not allowed: add it to server.allowed_origins "
                                           "(HERALD_SERVER_ALLOWED_ORIGINS)"};
}

}  // namespace herald::gateway::http
