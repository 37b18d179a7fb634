// A keyword dictionary store: named dictionaries of entries that every
// process can write and that each process searches with its own compiled
// engine. Two implementations:
//   MemoryStore (memory_store.hpp): one process, nothing else running.
//   RedisStore  (redis_store.hpp):  shared by every process pointed at one Redis.
//
// Contract, both implementations:
// - A write (add_many, remove_many, flush) is validated first (what is wrong
//   and where: "entries[3].keyword: keyword is empty"), then applied
//   atomically with a version bump. A write that changes nothing keeps the
//   version. The write's handler runs once the writer's own engine includes
//   the write, when this process has that dictionary loaded.
// - warm() returns the current engine with no I/O and without waiting for
//   any build (engine_table.hpp); searching
//   it is 0 round trips. load() fetches a cold dictionary (RedisStore: one
//   round trip), compiles it and holds it: it takes one of
//   max_dictionaries slots and is kept fresh from then on.
// - read() (and engine(), which calls it on a miss) answers a one-off read
//   (the API's GET and match): a dictionary that exists is fetched and held
//   as by load(); one that was never written answers as the empty
//   dictionary (version 0) and takes no slot, so reads of unknown names
//   (typos) cannot fill the table. Nothing is kept for it, so its creation
//   later, by this process or another, is seen by the next read (RedisStore:
//   one round trip per such read).
// - Handlers run on the store's own thread (RedisStore) or the caller's
//   (MemoryStore) and must not block.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "match/store/compiled.hpp"
#include "match/store/engine_table.hpp"
#include "match/store/entry.hpp"
#include "match/store/stats.hpp"

namespace herald::match::store {

struct Limits {
  std::size_t max_dictionaries = 1024;  // dictionaries one process holds
  std::size_t max_batch = 100'000;      // entries in one add_many / remove_many
};

struct WriteResult {
  std::string error{};        // empty on success
  bool unavailable = false;   // the error is Redis being unreachable: retry later
  std::uint64_t version = 0;  // the dictionary's version after the write
  std::size_t changed = 0;    // entries added, updated or removed
  [[nodiscard]] bool ok() const { return error.empty(); }
};

struct EngineResult {
  std::string error{};
  bool unavailable = false;  // as in WriteResult
  std::shared_ptr<const Compiled> engine{};
  [[nodiscard]] bool ok() const { return error.empty(); }
};

// Whether a store can serve yet (Store::wait_ready).
struct Readiness {
  bool ready = true;
  // Why it will not become ready by waiting: the credentials were refused.
  std::optional<std::string> refusal;
};

class Store {
 public:
  using WriteFn = std::function<void(WriteResult)>;
  using EngineFn = std::function<void(EngineResult)>;

  explicit Store(Limits limits) : limits_(limits), table_(limits.max_dictionaries) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void add_many(std::string dict, std::vector<Entry> entries, WriteFn done) = 0;
  virtual void remove_many(std::string dict, std::vector<std::string> keywords, WriteFn done) = 0;
  virtual void flush(std::string dict, WriteFn done) = 0;
  // Fetches and compiles `dict` if it is not warm, and holds it (a slot);
  // an unknown dictionary is held as an empty one (version 0). For what the
  // process searches continually (moderation's dictionaries).
  virtual void load(std::string dict, EngineFn done) = 0;
  // Fetches `dict` if it is not warm; holds it only if it exists, else
  // answers empty_engine() and keeps nothing.
  virtual void read(std::string dict, EngineFn done) = 0;
  // Round trips made so far (0 for the memory store).
  [[nodiscard]] virtual std::uint64_t round_trips() const { return 0; }
  // Waits up to `timeout` for what the store is kept in (start-up, before
  // serving). The memory store is ready at once; a Redis store waits for
  // its connection, and stops waiting when Redis refuses the credentials.
  [[nodiscard]] virtual Readiness wait_ready(std::chrono::milliseconds /*timeout*/) const {
    return {};
  }

  void add(std::string dict, Entry entry, WriteFn done) {
    add_many(std::move(dict), {std::move(entry)}, std::move(done));
  }
  void remove(std::string dict, std::string keyword, WriteFn done) {
    remove_many(std::move(dict), {std::move(keyword)}, std::move(done));
  }

  // The warm engine of `dict`, or nullptr: no I/O, never waits for a build.
  [[nodiscard]] std::shared_ptr<const Compiled> warm(std::string_view dict) const;
  // warm() when it can (a hit, answered inline), else read() (a miss).
  void engine(std::string dict, EngineFn done);
  // The dictionary that was never written: version 0, no entries. One
  // engine shared by every store.
  [[nodiscard]] static std::shared_ptr<const Compiled> empty_engine();

  [[nodiscard]] const Stats& stats() const { return stats_; }
  [[nodiscard]] const Limits& limits() const { return limits_; }

 protected:
  // Checks the dictionary name, the batch size and each entry.
  [[nodiscard]] std::optional<std::string> check_add(std::string_view dict,
                                                     const std::vector<Entry>& entries) const;
  [[nodiscard]] std::optional<std::string> check_remove(
      std::string_view dict, const std::vector<std::string>& keywords) const;
  // Counts and times one build (a failure is counted too).
  herald::Result<std::shared_ptr<const Compiled>, std::string> build(std::uint64_t version,
                                                                     std::vector<Entry> entries);

  Limits limits_;
  EngineTable table_;
  Stats stats_;
};

}  // namespace herald::match::store
