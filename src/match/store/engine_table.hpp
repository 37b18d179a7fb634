// The compiled engines of one process, by dictionary name.
//
// Searches read here with no lock: the table is an immutable map behind an
// atomic shared_ptr (copy-on-write when a dictionary is first seen, which is
// rare), and each slot holds its engine behind another atomic shared_ptr.
// A rebuild builds a whole new Compiled elsewhere and then stores it in one
// atomic step, so a search sees the old engine or the new one, never a
// partial one, and never waits for a build. A search that loaded the old
// engine keeps it alive (shared_ptr) until it is done.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "match/store/compiled.hpp"

namespace herald::match::store {

struct Slot {
  std::atomic<std::shared_ptr<const Compiled>> engine;
};

class EngineTable {
 public:
  explicit EngineTable(std::size_t max_dictionaries) : max_(max_dictionaries) {}

  // The slot of `name`, or nullptr. Lock-free (two atomic loads).
  [[nodiscard]] std::shared_ptr<Slot> find(std::string_view name) const;
  // The slot of `name`, created if needed; nullptr and `error` when the
  // table already holds max_dictionaries.
  std::shared_ptr<Slot> get_or_add(const std::string& name, std::string& error);
  [[nodiscard]] std::vector<std::pair<std::string, std::shared_ptr<Slot>>> all() const;

 private:
  using Map = std::map<std::string, std::shared_ptr<Slot>, std::less<>>;
  std::size_t max_;
  std::atomic<std::shared_ptr<const Map>> map_{std::make_shared<const Map>()};
  std::mutex add_mutex_;  // serializes copy-on-write additions, never taken by a search
};

}  // namespace herald::match::store
