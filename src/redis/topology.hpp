// Where a module's Redis keys live: one server, several plain servers that
// split the keys by consistent hash (hash_ring.hpp), a Redis Cluster
// (cluster_slots.hpp), or one master that Redis Sentinel watches and
// replaces on failure (sentinel.hpp). Each module that keeps state in Redis has one
// (cluster.redis.* for rooms, keywords.redis.* for dictionaries) and hands
// it to its Router (router.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"

namespace herald::redis {

// Redis Cluster clients commonly allow a handful of redirections per
// command: a migration needs one or two; more means a map in flux.
inline constexpr std::uint32_t kDefaultMaxRedirects = 5;

struct Topology {
  enum class Kind : std::uint8_t {
    servers,   // `address` alone, or every entry of `servers` by consistent hash
    cluster,   // `address` is one node of a Redis Cluster; the rest is learnt from it
    sentinel,  // the master `master_name` that the `sentinels` name, asked on every connect
  };
  Kind kind = Kind::servers;
  config::Endpoint address{"127.0.0.1", 6379};
  std::vector<config::Endpoint> servers;  // Kind::servers; empty: `address` alone
  // Redis Cluster: MOVED/ASK redirections one command may follow.
  std::uint32_t max_redirects = kDefaultMaxRedirects;
  // Kind::sentinel: the Sentinels to ask (in order, the last one that
  // answered first) and the name they monitor the master under.
  std::vector<config::Endpoint> sentinels;
  std::string master_name;
  // The configuration section the values come from ("cluster.redis"),
  // named in error messages so that they say which key to fix.
  std::string section = "redis";
};

// A module's <section>.* topology keys as configured: topology ("servers",
// "cluster" or "sentinel"), address, shards ("host:port, host:port"),
// max_redirects, sentinels ("host:port, host:port") and master_name.
struct TopologySettings {
  std::string kind = "servers";
  config::Endpoint address{"127.0.0.1", 6379};
  std::string shards;
  std::uint32_t max_redirects = kDefaultMaxRedirects;
  std::string sentinels;
  std::string master_name;
};

// Registers <section>.address, .topology, .shards, .max_redirects,
// .sentinels and .master_name into `t`, with help texts that say they are
// used when `used_when` ("cluster.mode = redis") and spread `what` ("rooms").
void register_topology_settings(config::Schema& s, const std::string& section,
                                std::string_view used_when, std::string_view what,
                                TopologySettings& t);

// The topology the settings describe. Throws std::runtime_error naming the
// key to fix (`<section>.shards` or `.sentinels` and the entry that is not
// an address; `.sentinels` or `.master_name` missing for "sentinel").
[[nodiscard]] Topology make_topology(const TopologySettings& settings, std::string section);

}  // namespace herald::redis
