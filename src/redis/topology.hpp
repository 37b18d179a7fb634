// Where a module's Redis keys live: one server, several plain servers that
// split the keys by consistent hash (hash_ring.hpp), or a Redis Cluster
// (cluster_slots.hpp). Each module that keeps state in Redis has one
// (cluster.redis.* for rooms, keywords.redis.* for dictionaries) and hands
// it to its Router (router.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/values.hpp"

namespace herald::redis {

// Redis Cluster clients commonly allow a handful of redirections per
// command: a migration needs one or two; more means a map in flux.
inline constexpr std::uint32_t kDefaultMaxRedirects = 5;

struct Topology {
  enum class Kind : std::uint8_t {
    servers,  // `address` alone, or every entry of `servers` by consistent hash
    cluster,  // `address` is one node of a Redis Cluster; the rest is learnt from it
  };
  Kind kind = Kind::servers;
  config::Endpoint address{"127.0.0.1", 6379};
  std::vector<config::Endpoint> servers;  // Kind::servers; empty: `address` alone
  // Redis Cluster: MOVED/ASK redirections one command may follow.
  std::uint32_t max_redirects = kDefaultMaxRedirects;
  // The configuration section the values come from ("cluster.redis"),
  // named in error messages so that they say which key to fix.
  std::string section = "redis";
};

// The topology that `<section>.topology` ("servers" or "cluster"),
// `<section>.address`, `<section>.shards` ("host:port, host:port") and
// `<section>.max_redirects` describe. Throws std::runtime_error naming
// `<section>.shards` and the entry when one is not an address.
[[nodiscard]] Topology make_topology(std::string_view kind, const config::Endpoint& address,
                                     std::string_view shards, std::uint32_t max_redirects,
                                     std::string section);

}  // namespace herald::redis
