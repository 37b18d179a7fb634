// Settings of the DNS server (heraldd's [dns] section binds them; see
// docs/configuration.md). Every limit is explicit here, with its default.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "dns/responder.hpp"
#include "dns/server/acl.hpp"

namespace herald::dns {

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 5353;  // 0: the kernel picks (tests); UDP and TCP share it
  unsigned threads = 1;       // shards: each has its own UDP socket and TCP acceptor
  // TCP (RFC 7766): a connection silent this long is closed; at most this
  // many connections at once over all shards (more are closed on accept).
  std::chrono::milliseconds tcp_idle_timeout{10'000};
  std::size_t max_tcp_connections = 1000;
  // A connection is closed after answering this many queries, or once it is
  // this old, whichever comes first (as NSD's tcp-query-count): the idle
  // timeout alone lets one query every few seconds hold a slot forever. The
  // age is checked between messages, so a reply (a zone transfer) is never
  // cut; the wait for the next query never runs past it.
  std::size_t tcp_max_queries = 1000;
  std::chrono::milliseconds tcp_lifetime{120'000};
  // Datagrams read by one recvmmsg and answered by one sendmmsg; a shard
  // takes at most four full batches per wake-up before it yields to its
  // other work (TCP).
  std::size_t udp_batch = 32;
  // SO_RCVBUF and SO_SNDBUF of each UDP socket, in octets.
  int udp_socket_buffer = 4 << 20;
  ResponderOptions responder;
  // Response rate limiting (rrl.hpp): answers per second per client network
  // over UDP, per shard; 0 is off. Every rrl_slip-th answer over the rate is
  // sent truncated (0: all dropped).
  std::uint32_t rrl_rate = 0;
  std::uint32_t rrl_slip = 2;
  // Clients that may transfer zones (AXFR, IXFR) over TCP; empty: no one.
  AddressAcl transfer_acl;
};

}  // namespace herald::dns
