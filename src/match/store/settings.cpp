#include "match/store/settings.hpp"

#include "match/store/memory_store.hpp"

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
  s.add_string("keywords.redis.username", o.redis.redis.credentials.username,
               "Redis ACL user for keywords.store = redis (AUTH username password); empty: the "
               "default user",
               256);
  s.add_string("keywords.redis.password", o.redis.redis.credentials.password,
               "Password sent with AUTH on every connection to the keyword store's Redis; empty: "
               "no AUTH",
               1024);
  s.add_duration("keywords.redis.connect_timeout", o.redis.redis.connect_timeout, milliseconds(10),
                 milliseconds(60'000),
                 "Abandon a connection attempt to Redis after this long (then retry)");
  s.add_duration("keywords.redis.command_timeout", o.redis.redis.command_timeout, milliseconds(10),
                 milliseconds(60'000),
                 "A Redis request unanswered this long fails, and the connection is re-made");
  s.add_duration("keywords.redis.reconnect_min", o.redis.redis.reconnect_min, milliseconds(1),
                 milliseconds(60'000), "First wait before reconnecting to Redis (then doubled)");
  s.add_duration("keywords.redis.reconnect_max", o.redis.redis.reconnect_max, milliseconds(1),
                 milliseconds(600'000), "Longest wait between reconnection attempts");
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
