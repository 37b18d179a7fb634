#include "match/store/settings.hpp"

#include "match/store/memory_store.hpp"
#include "redis/connection_settings.hpp"

namespace herald::match::store {

void register_settings(config::Schema& s, Settings& o) {
  using std::chrono::milliseconds;
  s.add_choice("keywords.store", o.store, {"embedded", "redis"},
               "Where keyword dictionaries live: embedded (this process only) or redis (shared "
               "by every process pointed at one Redis)");
  s.add_int("keywords.max_dictionaries", o.redis.limits.max_dictionaries, 1, 1'000'000,
            "Dictionaries this process holds at once");
  s.add_int("keywords.max_batch", o.redis.limits.max_batch, 1, 1'000'000,
            "Entries in one add or remove request");
  redis::register_topology_settings(s, "keywords.redis", "keywords.store = redis", "dictionaries",
                                    o.redis_topology);
  redis::register_connection_settings(s, "keywords.redis", "the keyword store's Redis",
                                      "keywords.store = redis", o.redis.redis);
  s.add_duration("keywords.redis.backstop_interval", o.redis.backstop_interval, milliseconds(10),
                 milliseconds(3'600'000),
                 "Poll loaded dictionaries' version keys this often: the staleness bound when "
                 "a pub/sub invalidation is lost");
  s.add_string("keywords.redis.key_prefix", o.redis.key_prefix,
               "Prefix of every Redis key of the dictionaries", 256);
  s.add_string("keywords.redis.channel", o.redis.channel,
               "Redis pub/sub channel for invalidations (every process sharing dictionaries "
               "must use the same one)",
               256);
}

std::unique_ptr<Store> make_store(const Settings& settings) {
  if (settings.store != "redis") return std::make_unique<MemoryStore>(settings.redis.limits);
  RedisStoreOptions o = settings.redis;
  o.topology = redis::make_topology(settings.redis_topology, "keywords.redis");
  return std::make_unique<RedisStore>(std::move(o));
}

}  // namespace herald::match::store
