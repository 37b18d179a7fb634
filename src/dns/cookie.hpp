// DNS cookies (RFC 7873), with the interoperable server cookie of RFC 9018:
//
//   server cookie = Version (1) | Reserved (3) | Timestamp (4) | Hash (8)
//   Hash = SipHash-2-4(Client Cookie | Version | Reserved | Timestamp
//                      | Client IP, Server Secret)
//
// Version 1, Reserved 0, Timestamp in seconds (serial arithmetic). A cookie
// is valid for one hour and up to five minutes in the future (RFC 9018 §4.3);
// a server sharing its secret with others (anycast) accepts their cookies.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace herald::dns {

using CookieSecret = std::array<std::uint8_t, 16>;
using ServerCookie = std::array<std::uint8_t, 16>;

ServerCookie make_server_cookie(std::span<const std::uint8_t> client_cookie,
                                std::span<const std::uint8_t> client_ip, std::uint32_t now,
                                const CookieSecret& secret);

// True if `server_cookie` is one we (or a server with our secret) made for
// this client cookie and address, and is within its lifetime at `now`.
bool valid_server_cookie(std::span<const std::uint8_t> client_cookie,
                         std::span<const std::uint8_t> server_cookie,
                         std::span<const std::uint8_t> client_ip, std::uint32_t now,
                         const CookieSecret& secret);

}  // namespace herald::dns
