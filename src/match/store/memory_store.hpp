// The embedded store: dictionaries in this process only (heraldd's default,
// with nothing else running). A write applies under one mutex, rebuilds the
// engine and swaps it in before returning, so the handler runs inline with
// the write visible to every later search. Searches never wait for a build.
// A dictionary exists once a write changed it: it then has a slot, so a
// read() that finds no warm engine has found a dictionary never written.
#pragma once

#include <map>
#include <mutex>

#include "match/store/store.hpp"

namespace herald::match::store {

class MemoryStore final : public Store {
 public:
  explicit MemoryStore(Limits limits = {}) : Store(limits) {}

  void add_many(std::string dict, std::vector<Entry> entries, WriteFn done) override;
  void remove_many(std::string dict, std::vector<std::string> keywords, WriteFn done) override;
  void flush(std::string dict, WriteFn done) override;
  void load(std::string dict, EngineFn done) override;
  void read(std::string dict, EngineFn done) override;

 private:
  struct Dict {
    std::uint64_t version = 0;
    std::map<std::string, Entry, std::less<>> entries;
  };
  // A copy of `name`'s entries (empty if it was never written), so that a
  // failed rebuild leaves the dictionary as it was; the caller holds mutex_.
  [[nodiscard]] Dict copy_of(const std::string& name) const;
  // Rebuilds `d` as `name` and swaps it in, and keeps `d` if it changed;
  // the caller holds mutex_. A write that changes nothing creates nothing.
  WriteResult commit(const std::string& name, Dict d, std::size_t changed);
  std::mutex mutex_;  // writers only
  std::map<std::string, Dict, std::less<>> dicts_;
};

}  // namespace herald::match::store
