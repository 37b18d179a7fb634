#include "match/store/memory_store.hpp"

namespace herald::match::store {

MemoryStore::Dict MemoryStore::copy_of(const std::string& name) const {
  auto it = dicts_.find(name);
  return it == dicts_.end() ? Dict{} : it->second;
}

WriteResult MemoryStore::commit(const std::string& name, Dict d, std::size_t changed) {
  WriteResult r;
  if (changed == 0) {
    r.version = d.version;
    return r;
  }
  auto slot = table_.get_or_add(name);
  if (!slot) return WriteResult{.error = slot.error(), .version = d.version};
  std::vector<Entry> entries;
  entries.reserve(d.entries.size());
  for (const auto& [k, e] : d.entries) entries.push_back(e);
  auto compiled = build(d.version + 1, std::move(entries));
  if (!compiled) {
    return WriteResult{.error = "rebuild failed: " + compiled.error(), .version = d.version};
  }
  d.version += 1;
  (*slot)->engine.store(std::move(compiled).value());
  r.version = d.version;
  r.changed = changed;
  dicts_[name] = std::move(d);
  return r;
}

void MemoryStore::add_many(std::string dict, std::vector<Entry> entries, WriteFn done) {
  if (auto e = check_add(dict, entries)) return done(WriteResult{*e});
  WriteResult r;
  {
    std::lock_guard lock(mutex_);
    Dict next = copy_of(dict);
    std::size_t changed = 0;
    for (Entry& e : entries) {
      auto [it, added] = next.entries.try_emplace(e.keyword, e);
      if (added || !(it->second == e)) {
        it->second = std::move(e);
        ++changed;
      }
    }
    r = commit(dict, std::move(next), changed);
  }  // handlers run without the lock: they may write again
  done(std::move(r));
}

void MemoryStore::remove_many(std::string dict, std::vector<std::string> keywords, WriteFn done) {
  if (auto e = check_remove(dict, keywords)) return done(WriteResult{*e});
  WriteResult r;
  {
    std::lock_guard lock(mutex_);
    Dict next = copy_of(dict);
    std::size_t changed = 0;
    for (const std::string& k : keywords) changed += next.entries.erase(k);
    r = commit(dict, std::move(next), changed);
  }  // handlers run without the lock: they may write again
  done(std::move(r));
}

void MemoryStore::flush(std::string dict, WriteFn done) {
  if (auto e = dictionary_name_error(dict)) return done(WriteResult{*e});
  WriteResult r;
  {
    std::lock_guard lock(mutex_);
    Dict next = copy_of(dict);
    const std::size_t changed = next.entries.size();
    next.entries.clear();
    r = commit(dict, std::move(next), changed);
  }  // handlers run without the lock: they may write again
  done(std::move(r));
}

void MemoryStore::load(std::string dict, EngineFn done) {
  if (auto e = dictionary_name_error(dict)) return done(EngineResult{.error = *e});
  EngineResult r;
  {
    std::lock_guard lock(mutex_);
    auto slot = table_.get_or_add(dict);
    if (slot) {
      r.engine = (*slot)->engine.load();
      // Never written: held as the empty dictionary, version 0.
      if (!r.engine) {
        r.engine = empty_engine();
        (*slot)->engine.store(r.engine);
      }
    } else {
      r.error = slot.error();
    }
  }
  done(std::move(r));
}

void MemoryStore::read(std::string dict, EngineFn done) {
  if (auto e = dictionary_name_error(dict)) return done(EngineResult{.error = *e});
  if (auto e = warm(dict)) return done(EngineResult{.engine = std::move(e)});
  // No engine: never written (a write makes its engine before it answers),
  // and never loaded. Nothing to keep.
  done(EngineResult{.engine = empty_engine()});
}

}  // namespace herald::match::store
