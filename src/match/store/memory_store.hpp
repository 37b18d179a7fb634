// The embedded store: dictionaries in this process only (heraldd's default,
// with nothing else running). A write applies under one mutex, rebuilds the
// engine and swaps it in before returning, so the handler runs inline with
// the write visible to every later search. Searches never wait for a build.
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

 private:
  struct Dict {
    std::uint64_t version = 0;
    std::map<std::string, Entry, std::less<>> entries;
  };
  // Rebuilds `d` as `name` and swaps it in; the caller holds mutex_.
  WriteResult commit(const std::string& name, Dict& d, std::size_t changed);
  std::mutex mutex_;  // writers only
  std::map<std::string, Dict, std::less<>> dicts_;
};

}  // namespace herald::match::store
