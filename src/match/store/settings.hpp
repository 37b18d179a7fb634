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
  std::string store = "embedded";          // "embedded" or "redis"
  redis::TopologySettings redis_topology;  // keywords.redis.address, .topology, ...
  RedisStoreOptions redis;                 // its topology comes from redis_topology (make_store)
};

void register_settings(config::Schema& schema, Settings& settings);

// The store the settings ask for. A Redis store starts connecting in the
// background; it does not wait for Redis (searches of loaded dictionaries
// and writes work once it is up; until then writes fail with a clear error).
// Throws std::runtime_error naming the key when the topology keys are wrong
// (make_topology), or when a Redis Cluster's slot map cannot
// be read from keywords.redis.address (redis::Router).
[[nodiscard]] std::unique_ptr<Store> make_store(const Settings& settings);

}  // namespace herald::match::store
