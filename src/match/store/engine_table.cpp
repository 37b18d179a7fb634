#include "match/store/engine_table.hpp"

namespace herald::match::store {

std::shared_ptr<Slot> EngineTable::find(std::string_view name) const {
  std::shared_ptr<const Map> map = map_.load();
  auto it = map->find(name);
  return it == map->end() ? nullptr : it->second;
}

herald::Result<std::shared_ptr<Slot>, std::string> EngineTable::get_or_add(
    const std::string& name) {
  std::lock_guard lock(add_mutex_);
  std::shared_ptr<const Map> map = map_.load();
  if (auto it = map->find(name); it != map->end()) return it->second;
  if (map->size() >= max_) {
    return "too many dictionaries: the limit is " + std::to_string(max_) +
           " (keywords.max_dictionaries)";
  }
  auto next = std::make_shared<Map>(*map);
  auto slot = std::make_shared<Slot>();
  next->emplace(name, slot);
  map_.store(std::move(next));
  return slot;
}

std::vector<std::pair<std::string, std::shared_ptr<Slot>>> EngineTable::all() const {
  std::shared_ptr<const Map> map = map_.load();
  return {map->begin(), map->end()};
}

}  // namespace herald::match::store
