// The shared store: dictionaries in Redis (schema: redis_schema.hpp), a
// compiled engine per dictionary in each process.
//
// Threads. The store runs its own thread with one io_context: the Redis
// client, every control decision (what to load, when to swap) and every
// handler live there, so control state takes no lock. Engines are compiled
// on a second thread (the builder) so a large build never stalls Redis I/O;
// the result is posted back and swapped in. Searches run on the caller's
// threads and only read the EngineTable (a pointer copy; never a wait
// for a build).
//
// Freshness. A process learns of a peer's write
//   1. by pub/sub: the write's invalidation names the new version; if it
//      differs from ours (and is not our own echo), we reload;
//   2. by the backstop: every backstop_interval, one pipeline (per server) of GET
//      <version> for every loaded dictionary (never the dictionaries
//      themselves); a version that differs from ours triggers a reload;
//   3. on every (re)connect: resubscribe, then the same version check.
// So a lost message or a reconnect leaves a process stale for at most
// about one backstop interval (plus the reload).
//
// Loads of one dictionary never overlap: a reload asked for while one is in
// flight runs right after it, so the last load always starts after the
// last invalidation seen.
//
// Unknown dictionaries. read() of a dictionary this process does not hold
// keeps control state for it only while its one read is in flight, and no
// slot: an invalidation that arrives meanwhile is noted as for any load in
// flight. If the read finds it (a version key, or entries) or a write or an
// invalidation for it came meanwhile, it is held from then on like a
// load(); if not, the read answers the empty dictionary and the state is
// dropped. So a name that does not exist costs one round trip per read and
// nothing after, and one created later (here or on another process) is
// seen by the next read, which reads Redis again.
//
// Servers. The dictionaries may be spread over several Redis servers or a
// Redis Cluster (keywords.redis.topology): redis::Router sends each
// dictionary's commands to its server and follows a Redis Cluster's
// redirections, so a dictionary whose slot migrates is read and written
// throughout; the backstop's pipeline is one per server.
//
// Redis down: warm engines keep serving; writes and cold loads fail at once
// with "redis unavailable at HOST:PORT: <reason>"; the client reconnects with
// backoff and the version check above catches up what was missed.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <chrono>
#include <map>
#include <thread>

#include "match/store/redis_schema.hpp"
#include "match/store/store.hpp"
#include "redis/options.hpp"
#include "redis/router.hpp"
#include "redis/topology.hpp"

namespace herald::match::store {

inline constexpr std::string_view kDefaultKeyPrefix = "herald:kw:";
inline constexpr std::string_view kDefaultChannel = "herald:kw:invalidate";

struct RedisStoreOptions {
  // Where the dictionaries live: one server, several by consistent hash,
  // or a Redis Cluster (every key of a dictionary carries its name as the
  // hash tag, so a dictionary is on one server: redis_schema.hpp).
  redis::Topology topology;
  redis::Options redis;  // how each server is reached (its host and port: from topology)
  std::string key_prefix{kDefaultKeyPrefix};
  std::string channel{kDefaultChannel};
  // How often loaded dictionaries' versions are polled; the staleness bound
  // when pub/sub loses a message.
  std::chrono::milliseconds backstop_interval{5000};
  Limits limits;
};

class RedisStore final : public Store {
 public:
  explicit RedisStore(RedisStoreOptions options);
  ~RedisStore() override;

  void add_many(std::string dict, std::vector<Entry> entries, WriteFn done) override;
  void remove_many(std::string dict, std::vector<std::string> keywords, WriteFn done) override;
  void flush(std::string dict, WriteFn done) override;
  void load(std::string dict, EngineFn done) override;
  void read(std::string dict, EngineFn done) override;
  [[nodiscard]] std::uint64_t round_trips() const override { return router_->round_trips(); }

  // Whether the connections to every server are up (subscribed, ready for
  // commands).
  [[nodiscard]] bool connected() const { return router_->all_ready(); }
  // Polls connected() until true or `timeout` passes (start-up of tools and
  // tests); false at once when Redis refuses the credentials (refusal()).
  [[nodiscard]] bool wait_connected(std::chrono::milliseconds timeout) const;
  // While Redis refuses keywords.redis.username/password: why (redis::Client::refusal).
  [[nodiscard]] std::optional<std::string> refusal() const { return router_->refusal(); }
  [[nodiscard]] Readiness wait_ready(std::chrono::milliseconds timeout) const override {
    const bool up = wait_connected(timeout);
    return {up, up ? std::nullopt : refusal()};
  }
  // This process's origin id in invalidations.
  [[nodiscard]] const std::string& origin() const { return origin_; }

 private:
  struct LoadError {
    std::string message;       // empty: no error
    bool unavailable = false;  // Redis could not be reached
  };
  // Told when a load ends: its error, and the engine now served (the new
  // one, the last good one, the empty one, or nullptr).
  using Waiter = std::function<void(const LoadError&, const std::shared_ptr<const Compiled>&)>;
  // Control state of one dictionary; touched on the store's thread only.
  struct Dict {
    // nullptr while the first read() of a dictionary not held is in flight
    // (see "Unknown dictionaries" above).
    std::shared_ptr<Slot> slot;
    bool loading = false;       // a read or a build is in flight
    bool reload_again = false;  // something changed while it was
    // Handlers for the load in flight, and for the next one to start.
    std::vector<Waiter> in_flight, next;
    std::int64_t invalidated_ms = 0;  // the writer's time of the newest unapplied invalidation
    std::uint64_t announced = 0;      // the newest version announced while a load was in flight
  };

  void write(std::string dict, redis::Command command, std::function<void(WriteResult)> done,
             std::function<std::vector<Entry>(const Compiled&)> apply);
  // The state of `name`, holding a slot (created if needed); refused at the
  // max_dictionaries limit.
  herald::Result<Dict*, std::string> dict_state(const std::string& name);
  // load() (`hold`) and read().
  void fetch(std::string dict, bool hold, EngineFn done);
  void start_load(const std::string& name);
  // The first read of a dictionary not held found nothing: answers its
  // waiters with the empty engine and drops its state.
  void forget(const std::string& name);
  void compile(const std::string& name, std::uint64_t version, std::vector<Entry> entries);
  void install(const std::string& name, const std::shared_ptr<const Compiled>& engine,
               const LoadError& error);
  void on_invalidation(std::string_view payload);
  void check_versions();
  // One server's answer to check_versions: reloads each of `names` whose
  // version differs from the one served.
  void compare_versions(const std::vector<std::string>& names, const redis::Result& r);
  void arm_backstop();
  [[nodiscard]] schema::Origin make_origin() const;

  RedisStoreOptions options_;
  std::string origin_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::unique_ptr<redis::Router> router_;
  boost::asio::steady_timer backstop_;
  boost::asio::thread_pool builder_{1};
  std::map<std::string, Dict, std::less<>> dicts_;
  bool stopping_ = false;  // store thread only
  std::thread thread_;
};

}  // namespace herald::match::store
