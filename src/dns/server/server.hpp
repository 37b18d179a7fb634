// The DNS server: UDP and TCP on one address, over asio.
//
// Shard per thread, as the gateway: each shard has its own io_context, its
// own UDP socket and its own TCP acceptor, all bound to the same address
// with SO_REUSEPORT, so the kernel spreads datagrams and connections over
// the shards and no two threads ever touch one socket. Each shard answers
// with its own Responder (reused buffers) from the ZoneStore's current
// database, taken once per batch of datagrams: a reload swaps the database
// between batches without stopping or dropping anything.
//
// UDP: on readiness a shard receives and answers up to udp_batch datagrams
// with non-blocking calls, then waits again. A reply that cannot be sent at
// once (socket buffer full) is dropped and counted: the client retries.
// TCP (RFC 7766): length-prefixed messages, answered in order; a client may
// pipeline (queries queue in the socket while one is answered); idle
// connections close after tcp_idle_timeout; at most max_tcp_connections.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <atomic>
#include <memory>
#include <vector>

#include "core/metrics/registry.hpp"
#include "dns/server/options.hpp"
#include "dns/server/stats.hpp"
#include "dns/zone_db.hpp"

namespace herald::dns {

class Server {
 public:
  Server(ServerOptions options, ZoneStore& zones);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Shard `i` records the time it takes to answer each query (decode, walk,
  // encode: not the time a datagram waits in the socket) into `h`, which
  // only that shard writes. Call before start().
  void set_latency_histogram(unsigned shard, metrics::Histogram* h);

  // Binds every shard's sockets and starts the threads. Throws
  // std::system_error naming the address and the step that failed.
  void start();
  // Closes the sockets and joins the threads. Idempotent.
  void stop();

  std::uint16_t port() const noexcept;  // the bound port (the real one for port 0)
  unsigned shard_count() const noexcept;
  std::size_t tcp_connections() const noexcept;

  // Sums over the shards, for metrics.
  std::uint64_t queries_of_type(std::size_t slot) const noexcept;
  std::uint64_t responses_with_rcode(std::size_t slot) const noexcept;
  std::uint64_t dropped() const noexcept;
  std::uint64_t truncated() const noexcept;
  std::uint64_t tcp_refused() const noexcept;
  std::uint64_t tcp_spent() const noexcept;
  std::uint64_t cookies(CookieState state) const noexcept;
  std::uint64_t rrl_dropped() const noexcept;
  std::uint64_t rrl_slipped() const noexcept;
  std::uint64_t signing(SigningStat stat) const noexcept;

  struct Shard;  // server.cpp

 private:
  // Opens and binds every shard's sockets on `port` (0: the kernel's
  // choice, written back); returns the step that failed, or nullptr.
  const char* bind_all(const boost::asio::ip::address& address, std::uint16_t& port,
                       boost::system::error_code& ec);

  ServerOptions opt_;
  ZoneStore& zones_;
  // Before shards_: connections still held by a shard's io_context decrement
  // it when the shards are destroyed, so it must outlive them.
  std::atomic<std::size_t> tcp_open_{0};
  std::vector<std::unique_ptr<Shard>> shards_;
  std::uint16_t port_ = 0;
  bool started_ = false;
};

}  // namespace herald::dns
