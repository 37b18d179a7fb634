// The [keywords] configuration section: which store holds the keyword
// dictionaries (embedded by default, Redis when configured) and its limits.
// docs/configuration.md lists every key.
#pragma once

#include <memory>
#include <string>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"
#include "match/store/redis_store.hpp"
#include "match/store/store.hpp"

namespace herald::match::store {

struct Settings {
  std::string store = "embedded";  // "embedded" or "redis"
  config::Endpoint redis_address{"127.0.0.1", 6379};
  RedisStoreOptions redis;  // its host and port come from redis_address
};

void register_settings(config::Schema& schema, Settings& settings);

// The store the settings ask for. A Redis store starts connecting in the
// background; it does not wait for Redis (searches of loaded dictionaries
// and writes work once it is up; until then writes fail with a clear error).
[[nodiscard]] std::unique_ptr<Store> make_store(const Settings& settings);

}  // namespace herald::match::store
