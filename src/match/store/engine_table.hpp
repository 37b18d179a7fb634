// The compiled engines of one process, by dictionary name.
//
// Searches never wait for a build: a rebuild builds a whole new Compiled
// elsewhere and then swaps the pointer in, so a search sees the old engine
// or the new one, never a partial one, and a search that took the old one
// keeps it alive (shared_ptr) until it is done. The table itself is an
// immutable map, replaced whole (copy-on-write) when a dictionary is first
// seen, which is rare.
//
// Each pointer lives in a PtrCell: a mutex held only to copy or swap one
// shared_ptr (tens of nanoseconds), never during a build or a search.
// Measured choice, kept here for whoever tries again: libstdc++ 12's
// std::atomic<std::shared_ptr> does the same with a spin bit, but its load
// releases that bit with relaxed order, which ThreadSanitizer reports as a
// race with the next store; a plain mutex costs the same and is checkable.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "match/store/compiled.hpp"

namespace herald::match::store {

template <class T>
class PtrCell {
 public:
  PtrCell() = default;
  explicit PtrCell(std::shared_ptr<T> p) : p_(std::move(p)) {}
  [[nodiscard]] std::shared_ptr<T> load() const {
    std::lock_guard lock(mutex_);
    return p_;
  }
  void store(std::shared_ptr<T> p) {
    {
      std::lock_guard lock(mutex_);
      p_.swap(p);
    }
    // `p` now holds the old value; if that was the last reference, the old
    // engine is destroyed here, outside the lock.
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<T> p_;
};

struct Slot {
  PtrCell<const Compiled> engine;
};

class EngineTable {
 public:
  explicit EngineTable(std::size_t max_dictionaries) : max_(max_dictionaries) {}

  // The slot of `name`, or nullptr (two pointer copies, no wait on a build).
  [[nodiscard]] std::shared_ptr<Slot> find(std::string_view name) const;
  // The slot of `name`, created if needed; refused (with the limit named)
  // when the table already holds max_dictionaries.
  herald::Result<std::shared_ptr<Slot>, std::string> get_or_add(const std::string& name);
  [[nodiscard]] std::vector<std::pair<std::string, std::shared_ptr<Slot>>> all() const;

 private:
  using Map = std::map<std::string, std::shared_ptr<Slot>, std::less<>>;
  std::size_t max_;
  PtrCell<const Map> map_{std::make_shared<const Map>()};
  std::mutex add_mutex_;  // serializes copy-on-write additions, never taken by a search
};

}  // namespace herald::match::store
