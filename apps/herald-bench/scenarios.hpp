// The gateway benchmark scenarios (family G of docs/benchmarks.md).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "stats.hpp"
#include "target.hpp"

namespace herald::bench {

// G1, the Karib shape: subscribers spread over rooms, publishers at a fixed
// total rate, every subscriber dropping its connection and reconnecting
// (with recovery from its last offset) every reconnect_every.
struct G1Options {
  unsigned subscribers = 2000;
  unsigned rooms = 100;
  unsigned publishers = 10;
  double rate = 1000;  // publications per second, all publishers together
  std::chrono::milliseconds duration{60'000};
  std::chrono::milliseconds reconnect_every{10'000};
  std::chrono::milliseconds drain{
      60'000};                  // at most, after the last publish, for everything to arrive
  bool quiet = false;           // no progress lines
  unsigned server_threads = 1;  // to tell a saturated server
};

// G2, fan-out throughput: subscribers in `rooms` rooms, publishers keeping
// `window` publications in flight each, measured over `duration`.
struct G2Options {
  unsigned subscribers = 10'000;
  unsigned rooms = 1;
  unsigned publishers = 1;
  unsigned window = 8;
  std::size_t payload_bytes = 64;
  // Instead of `payload_bytes` of filler: a realistic chat message, about
  // 300 bytes of JSON text that differs from one publication to the next.
  bool chat = false;
  // Every client offers permessage-deflate (the server must accept it).
  bool compression = false;
  std::chrono::milliseconds duration{10'000};
  std::chrono::milliseconds warmup{1'000};
  bool quiet = false;
  unsigned server_threads = 1;  // 0 for the single-threaded reference
  // Connect over TLS (wss://) with this client context; null: plain.
  boost::asio::ssl::context* tls = nullptr;
  // The client protocol: Herald's own on /ws (dev mode's bare user), or
  // Centrifugo's on /connection/websocket, connecting with `token` (heraldd
  // then runs with the key that signed it).
  enum class Protocol : std::uint8_t { herald, centrifugo };
  Protocol protocol = Protocol::herald;
  std::string token;
};

// Which side ran out of CPU: "load generator" (its one thread over 90% of a
// core), "server" (over 90% of its threads), "machine" (over 90% of all
// cores busy, other processes included: the figure says more about the
// machine than about the server), or "neither" (the figure is bounded by
// the offered load, not by CPU).
std::string saturation(double bench_cores, double server_cores, unsigned server_threads,
                       double machine_busy_percent);

// Each returns its report; `ok` is false when a correctness figure (loss,
// duplicates, failed recoveries, connections) is not what it must be.
Report run_g1(const G1Options& options, Target& target, bool& ok);
// G3: G1 across several heraldd nodes sharing one Redis (cluster mode).
// Subscribers and publishers are spread over the nodes; each churn
// reconnects a subscriber to the next node (recovering there from its
// offset); halfway through, one thing is SIGKILLed:
//  - a node (`kill_node`, an index into nodes): its clients reconnect to the
//    others. Publishes in flight on it have an unknown outcome and are
//    counted apart, never as loss.
//  - the Redis master (`kill_redis`), with a replica and a Sentinel beside
//    it: the nodes follow the failover; publishes meanwhile are refused
//    with 114 (counted, not expected), and a subscriber reset (3005) whose
//    resubscribe answers recovered:false is *told*: what it had not received
//    of the publications acknowledged before it was told is counted apart
//    ("told"), not as loss. Duplicates, disorder and silent gaps count as
//    strictly as ever.
struct G3Setup {
  std::vector<Target*> nodes;
  int kill_node = -1;            // index into nodes; -1: no node is killed
  Target* kill_redis = nullptr;  // the Redis master to kill instead; null: none
  Target* replica = nullptr;     // its replica (how far behind it was at the kill)
  Target* sentinel = nullptr;    // the Sentinel (when it switched the master)
  std::vector<Target*> redis;    // every redis-server and Sentinel (their CPU)
  std::string redis_topology;    // "single" or "sentinel" (reported)
  unsigned wait_replicas = 0;    // what the nodes were given (reported)
  // With kill_redis: this long before the kill, the replica's link is cut
  // (REPLICAOF a port nobody listens on), so the publications acknowledged
  // meanwhile exist only on the master, as asynchronous replication can
  // leave them; 0: not cut.
  std::chrono::milliseconds cut_replica_before{0};
};
Report run_g3(const G1Options& options, const G3Setup& setup, bool& ok);
Report run_g2(const G2Options& options, Target& target, bool& ok);

}  // namespace herald::bench
