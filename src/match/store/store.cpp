#include "match/store/store.hpp"

#include <chrono>

namespace herald::match::store {

std::shared_ptr<const Compiled> Store::warm(std::string_view dict) const {
  std::shared_ptr<Slot> slot = table_.find(dict);
  if (!slot) return nullptr;
  return slot->engine.load();
}

void Store::engine(std::string dict, EngineFn done) {
  if (auto e = warm(dict)) {
    stats_.hits.fetch_add(1, std::memory_order_relaxed);
    return done(EngineResult{.engine = std::move(e)});
  }
  stats_.misses.fetch_add(1, std::memory_order_relaxed);
  read(std::move(dict), std::move(done));
}

std::shared_ptr<const Compiled> Store::empty_engine() {
  // Built once (thread-safe static); building nothing cannot fail.
  static const std::shared_ptr<const Compiled> empty = Compiled::build(0, {}).value();
  return empty;
}

std::optional<std::string> Store::check_add(std::string_view dict,
                                            const std::vector<Entry>& entries) const {
  if (auto e = dictionary_name_error(dict)) return *e;
  if (entries.empty()) return "entries: expected at least one";
  if (entries.size() > limits_.max_batch)
    return "entries: " + std::to_string(entries.size()) + " in one write; the limit is " +
           std::to_string(limits_.max_batch) + " (keywords.max_batch)";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (auto e = keyword_error(entries[i].keyword))
      return "entries[" + std::to_string(i) + "].keyword: " + *e;
    if (auto e = category_error(entries[i].category))
      return "entries[" + std::to_string(i) + "].category: " + *e;
  }
  return std::nullopt;
}

std::optional<std::string> Store::check_remove(std::string_view dict,
                                               const std::vector<std::string>& keywords) const {
  if (auto e = dictionary_name_error(dict)) return *e;
  if (keywords.empty()) return "keywords: expected at least one";
  if (keywords.size() > limits_.max_batch)
    return "keywords: " + std::to_string(keywords.size()) + " in one write; the limit is " +
           std::to_string(limits_.max_batch) + " (keywords.max_batch)";
  for (std::size_t i = 0; i < keywords.size(); ++i) {
    if (auto e = keyword_error(keywords[i])) return "keywords[" + std::to_string(i) + "]: " + *e;
  }
  return std::nullopt;
}

herald::Result<std::shared_ptr<const Compiled>, std::string> Store::build(
    std::uint64_t version, std::vector<Entry> entries) {
  const auto t0 = std::chrono::steady_clock::now();
  auto compiled = Compiled::build(version, std::move(entries));
  const auto ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  if (!compiled) {
    stats_.rebuild_failures.fetch_add(1, std::memory_order_relaxed);
    return compiled;
  }
  stats_.rebuilds.fetch_add(1, std::memory_order_relaxed);
  stats_.rebuild_ns_total.fetch_add(ns, std::memory_order_relaxed);
  stats_.last_rebuild_ns.store(ns, std::memory_order_relaxed);
  return compiled;
}

}  // namespace herald::match::store
