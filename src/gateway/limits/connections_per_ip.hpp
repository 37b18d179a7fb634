// Connections held at once per remote address, against
// server.max_connections_per_ip.
//
// server.max_connections bounds the process; this bounds what one client
// can take of it, so a single host cannot hold every slot (each one may be
// buffering up to http.max_body_bytes of an unauthenticated request, or a
// WebSocket's queue). The accept loop asks before handing a socket to a
// shard; over the limit the socket gets 503 and is closed, like over
// server.max_connections. The connection then holds a Lease, which moves
// from its HTTP session to its WebSocket session on upgrade and gives the
// slot back when the connection ends, on whichever shard that is.
//
// What "one address" is:
//  - IPv4: the address. (An IPv4-mapped IPv6 address counts as its IPv4.)
//  - IPv6: the /64 prefix, because one host is routinely given a whole /64
//    and could otherwise take a new address per connection.
//  - Loopback (127.0.0.0/8, ::1) is not limited while
//    server.per_ip_exempt_loopback is on (the default): a reverse proxy on
//    the same machine makes every client look like 127.0.0.1 (the limit then
//    belongs in the proxy), and local load generators (herald-bench opens
//    10,000 connections from 127.0.0.1) and tests would hit it.
//
// Thread-safety: acquire runs on the acceptor's shard, release on the
// connection's shard, so the table is behind a mutex. It is taken once per
// connection open and once per close, never per message.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace herald::gateway::limits {

class ConnectionsPerIp {
 public:
  // A held slot; empty when the address is not limited (loopback exempt).
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

   private:
    friend class ConnectionsPerIp;
    Lease(ConnectionsPerIp* owner, std::string key) : owner_(owner), key_(std::move(key)) {}
    ConnectionsPerIp* owner_ = nullptr;
    std::string key_;
  };

  ConnectionsPerIp(std::uint32_t max_per_ip, bool exempt_loopback)
      : max_per_ip_(max_per_ip), exempt_loopback_(exempt_loopback) {}

  // A slot for a connection from `address`, or nullopt when that address
  // already holds max_per_ip.
  [[nodiscard]] std::optional<Lease> try_acquire(const boost::asio::ip::address& address);

  // Connections counted for `address` now (0 for an exempt one).
  [[nodiscard]] std::uint32_t held(const boost::asio::ip::address& address) const;

 private:
  // The bytes that identify "one client" (see the header comment); empty
  // for an exempt address.
  [[nodiscard]] std::string key_of(const boost::asio::ip::address& address) const;
  void release(const std::string& key);

  const std::uint32_t max_per_ip_;
  const bool exempt_loopback_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::uint32_t> held_;  // key -> connections; no zero entries
};

}  // namespace herald::gateway::limits
