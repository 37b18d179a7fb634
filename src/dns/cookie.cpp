#include "dns/cookie.hpp"

#include <algorithm>
#include <cstring>

#include "dns/detail/siphash.hpp"

namespace herald::dns {

namespace {

ServerCookie cookie_at(std::span<const std::uint8_t> client_cookie,
                       std::span<const std::uint8_t> client_ip, std::uint32_t ts,
                       const CookieSecret& secret) {
  ServerCookie c{};
  c[0] = 1;  // version; c[1..3] reserved, zero
  c[4] = static_cast<std::uint8_t>(ts >> 24);
  c[5] = static_cast<std::uint8_t>(ts >> 16);
  c[6] = static_cast<std::uint8_t>(ts >> 8);
  c[7] = static_cast<std::uint8_t>(ts);
  // Hash input: client cookie (8) | the 8 octets above | client IP (4 or 16).
  std::array<std::uint8_t, 8 + 8 + 16> in{};
  std::size_t n = 0;
  std::memcpy(in.data(), client_cookie.data(), 8);
  n += 8;
  std::memcpy(in.data() + n, c.data(), 8);
  n += 8;
  std::size_t ip = std::min<std::size_t>(client_ip.size(), 16);
  if (ip != 0) std::memcpy(in.data() + n, client_ip.data(), ip);
  n += ip;
  std::uint64_t h = detail::siphash24(secret, {in.data(), n});
  // The reference implementation writes its output little-endian.
  for (int i = 0; i < 8; ++i)
    c[8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(h >> (8 * i));
  return c;
}

}  // namespace

ServerCookie make_server_cookie(std::span<const std::uint8_t> client_cookie,
                                std::span<const std::uint8_t> client_ip, std::uint32_t now,
                                const CookieSecret& secret) {
  return cookie_at(client_cookie, client_ip, now, secret);
}

bool valid_server_cookie(std::span<const std::uint8_t> client_cookie,
                         std::span<const std::uint8_t> server_cookie,
                         std::span<const std::uint8_t> client_ip, std::uint32_t now,
                         const CookieSecret& secret) {
  if (client_cookie.size() != 8 || server_cookie.size() != 16 || server_cookie[0] != 1)
    return false;
  std::uint32_t ts = static_cast<std::uint32_t>(server_cookie[4]) << 24 |
                     static_cast<std::uint32_t>(server_cookie[5]) << 16 |
                     static_cast<std::uint32_t>(server_cookie[6]) << 8 | server_cookie[7];
  // Serial arithmetic (RFC 1982): age in (-300, 3600] seconds.
  std::int32_t age = static_cast<std::int32_t>(now - ts);
  if (age > 3600 || age < -300) return false;
  ServerCookie want = cookie_at(client_cookie, client_ip, ts, secret);
  return std::equal(want.begin(), want.end(), server_cookie.begin());
}

}  // namespace herald::dns
