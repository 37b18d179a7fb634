// MemoryStore: the embedded store heraldd uses with no Redis configured.
#include "match/store/memory_store.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "match/store/sync.hpp"
#include "support/eventually.hpp"

namespace herald::test {
namespace {

namespace kw = herald::match::store;

TEST(MemoryStore, WritesVersionsAndSearches) {
  kw::MemoryStore store;
  EXPECT_EQ(store.warm("d"), nullptr);
  auto cold = kw::engine(store, "d");
  ASSERT_TRUE(cold.ok());
  EXPECT_EQ(cold.engine->version(), 0u);
  auto w = kw::add_many(store, "d", {{"spam", kw::Action::reject, "ads"}, {"scam"}});
  EXPECT_EQ(w.version, 1u);
  EXPECT_EQ(w.changed, 2u);
  EXPECT_EQ(kw::add_many(store, "d", {{"spam", kw::Action::reject, "ads"}}).version, 1u);
  std::vector<kw::Hit> hits;
  store.warm("d")->find("SPAM or scam", hits);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].action, kw::Action::reject);
  EXPECT_EQ(hits[0].category, "ads");
  EXPECT_EQ(store.warm("d")->mask("a spam"), "a ****");
  auto r = kw::remove_many(store, "d", {"spam", "nothing"});
  EXPECT_EQ(r.changed, 1u);
  EXPECT_EQ(r.version, 2u);
  auto f = kw::flush(store, "d");
  EXPECT_EQ(f.changed, 1u);
  EXPECT_TRUE(store.warm("d")->entries().empty());
  EXPECT_EQ(store.round_trips(), 0u);
  EXPECT_EQ(store.stats().rebuilds.load(), 3u);  // the three effective writes
}

TEST(MemoryStore, ValidationAndLimits) {
  kw::MemoryStore store(kw::Limits{.max_dictionaries = 1, .max_batch = 2});
  EXPECT_EQ(kw::add_many(store, "d", {{"a"}, {"b"}, {"c"}}).error,
            "entries: 3 in one write; the limit is 2 (keywords.max_batch)");
  EXPECT_TRUE(kw::add_many(store, "d", {{"a"}}).ok());
  EXPECT_EQ(kw::add_many(store, "e", {{"a"}}).error,
            "too many dictionaries: the limit is 1 (keywords.max_dictionaries)");
  EXPECT_EQ(kw::flush(store, "bad name").error,
            "dictionary name has a byte outside [A-Za-z0-9_.-] at offset 3");
}

// Reads (and no-op writes) of names never written answer the empty
// dictionary and take no slot; a dictionary created after such a read is
// seen by the next one.
TEST(MemoryStore, ReadsOfUnknownDictionariesTakeNoSlot) {
  kw::MemoryStore store(kw::Limits{.max_dictionaries = 2});
  for (int i = 0; i < 100; ++i) {
    const std::string name = "typo" + std::to_string(i);
    auto r = kw::engine(store, name);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.engine->version(), 0u);
    EXPECT_TRUE(r.engine->entries().empty());
    auto f = kw::flush(store, name);  // changes nothing, creates nothing
    EXPECT_TRUE(f.ok());
    EXPECT_EQ(f.version, 0u);
    EXPECT_EQ(kw::remove_many(store, name, {"x"}).changed, 0u);
    EXPECT_EQ(store.warm(name), nullptr);
  }
  ASSERT_TRUE(kw::add_many(store, "typo7", {{"seven"}}).ok());  // created after a read
  auto r = kw::engine(store, "typo7");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.engine->version(), 1u);
  ASSERT_EQ(r.engine->entries().size(), 1u);
  EXPECT_TRUE(kw::load(store, "held").ok());  // held: the second slot
  EXPECT_EQ(kw::add_many(store, "third", {{"a"}}).error,
            "too many dictionaries: the limit is 2 (keywords.max_dictionaries)");
}

// Searches run while a writer rebuilds over and over: a search always gets
// a whole engine (the old or the new), never nothing and never a torn one.
TEST(MemoryStore, SearchesDuringRebuildsAlwaysSeeAWholeEngine) {
  kw::MemoryStore store;
  ASSERT_TRUE(kw::add_many(store, "d", {{"always"}}).ok());
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> bad{0}, searches{0};
  std::thread searcher([&] {
    std::vector<kw::Hit> hits;
    while (!stop.load()) {
      auto e = store.warm("d");
      if (!e) {
        bad.fetch_add(1);
        continue;
      }
      e->find("it is always there", hits);
      if (hits.size() != 1 || e->entries().size() != e->version()) bad.fetch_add(1);
      searches.fetch_add(1);
    }
  });
  // The searcher is seen searching before the first rebuild and after the
  // last, so its searches span the rebuilds however threads are scheduled.
  EXPECT_TRUE(herald::test::eventually([&] { return searches.load() > 0; }));
  for (int i = 0; i < 200; ++i)
    ASSERT_TRUE(kw::add_many(store, "d", {{"k" + std::to_string(i)}}).ok());
  const std::uint64_t after_rebuilds = searches.load();
  EXPECT_TRUE(herald::test::eventually([&] { return searches.load() > after_rebuilds; }));
  stop = true;
  searcher.join();
  EXPECT_EQ(bad.load(), 0u);
}

}  // namespace
}  // namespace herald::test
