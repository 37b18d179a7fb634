// The [keywords] configuration section: which store holds the keyword
// dictionaries (embedded by default, Redis when configured) and its limits.
// docs/configuration.md lists every key.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"
#include "match/store/redis_store.hpp"
#include "match/store/store.hpp"
#include "redis/topology.hpp"

namespace herald::match::store {

struct Settings {
  std::string store = "embedded";  // "embedded" or "redis"
  config::Endpoint redis_address{"127.0.0.1", 6379};
  std::string redis_topology = "servers";  // redis::Topology::Kind, by name
  std::string redis_shards;                // "host:port, host:port"; empty: redis_address
  std::uint32_t redis_max_redirects = redis::kDefaultMaxRedirects;
  RedisStoreOptions redis;  // its topology comes from the four above (make_store)
};

void register_settings(config::Schema& schema, Settings& settings);

// The store the settings ask for. A Redis store starts connecting in the
// background; it does not wait for Redis (searches of loaded dictionaries
// and writes work once it is up; until then writes fail with a clear error).
// Throws std::runtime_error naming the key when keywords.redis.shards holds
// something other than addresses, or when a Redis Cluster's slot map cannot
// be read from keywords.redis.address (redis::Router).
[[nodiscard]] std::unique_ptr<Store> make_store(const Settings& settings);

}  // namespace herald::match::store
