// RedisStore behaviour in one process against a real redis-server:
// validation, own echoes, failed rebuilds, lost data, limits, Redis down.
// (Two real processes: two_process_test.cpp.)
#include <gtest/gtest.h>

#include "match/store/redis_schema.hpp"
#include "redis_server.hpp"
#include "store_support.hpp"

namespace herald::test {
namespace {

TEST(RedisStore, BadWritesSayWhatAndWhereAndCostNoRoundTrip) {
  RedisServer server;
  auto o = store_options(server.port());
  o.limits.max_batch = 3;
  kw::RedisStore store(o);
  ASSERT_TRUE(store.wait_connected(10s));
  const std::uint64_t before = store.round_trips();
  struct Case {
    std::string dict;
    std::vector<kw::Entry> entries;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"a{b}", {{"x"}}, "dictionary name has a byte outside [A-Za-z0-9_.-] at offset 1"},
      {"", {{"x"}}, "dictionary name is empty"},
      {"d", {}, "entries: expected at least one"},
      {"d", {{"x"}, {"y"}, {""}}, "entries[2].keyword: keyword is empty"},
      {"d",
       {{std::string(257, 'k')}},
       "entries[0].keyword: keyword is 257 bytes; the limit is 256"},
      {"d", {{"ok"}, {"bad\xff"}}, "entries[1].keyword: keyword is not valid UTF-8 at byte 3"},
      {"d", {{"x", kw::Action::flag, "sp am"}}, "entries[0].category: category has a byte"},
      {"d", numbered("n", 4), "entries: 4 in one write; the limit is 3 (keywords.max_batch)"},
  };
  for (const Case& c : cases) {
    auto w = kw::add_many(store, c.dict, c.entries);
    EXPECT_NE(w.error.find(c.error), std::string::npos) << "got: " << w.error;
  }
  auto rm = kw::remove_many(store, "d", {"fine", ""});
  EXPECT_EQ(rm.error, "keywords[1]: keyword is empty");
  EXPECT_EQ(store.round_trips(), before);
}

TEST(RedisStore, WritesReportChangesAndNoOpsKeepTheVersion) {
  RedisServer server;
  kw::RedisStore store(store_options(server.port()));
  ASSERT_TRUE(store.wait_connected(10s));
  auto w1 = kw::add_many(store, "d", {{"a", kw::Action::reject, "x"}, {"b"}});
  ASSERT_TRUE(w1.ok()) << w1.error;
  EXPECT_EQ(w1.changed, 2u);
  auto same = kw::add_many(store, "d", {{"a", kw::Action::reject, "x"}});
  EXPECT_EQ(same.changed, 0u);
  EXPECT_EQ(same.version, w1.version);
  auto update = kw::add_many(store, "d", {{"a", kw::Action::mask, "x"}});  // metadata change
  EXPECT_EQ(update.changed, 1u);
  EXPECT_EQ(update.version, w1.version + 1);
  auto gone = kw::remove_many(store, "d", {"zzz"});
  EXPECT_EQ(gone.changed, 0u);
  EXPECT_EQ(gone.version, update.version);
  // The schema as docs/match.md documents it.
  EXPECT_EQ(server.command({"HGET", "herald:kw:{d}:meta", "a"}).str, "mask:x");
  EXPECT_EQ(server.command({"SISMEMBER", "herald:kw:{d}:keywords", "b"}).integer, 1);
  EXPECT_EQ(server.command({"GET", "herald:kw:{d}:version"}).str, std::to_string(update.version));
  auto e = kw::engine(store, "d");
  ASSERT_TRUE(e.ok());
  std::vector<kw::Hit> hits;
  e.engine->find("A or B", hits);  // case folding: "A" finds "a"
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].keyword, "a");
  EXPECT_EQ(hits[0].action, kw::Action::mask);
  EXPECT_EQ(hits[0].category, "x");
}

TEST(RedisStore, OwnEchoIsIgnored) {
  RedisServer server;
  kw::RedisStore a(store_options(server.port())), b(store_options(server.port()));
  ASSERT_TRUE(a.wait_connected(10s) && b.wait_connected(10s));
  ASSERT_TRUE(kw::load(a, "mine").ok());  // held (not yet written), so kept fresh
  ASSERT_TRUE(kw::load(a, "theirs").ok());
  const std::uint64_t before = a.round_trips();
  ASSERT_TRUE(kw::add_many(a, "mine", {{"own"}}).ok());
  // b's write is published after a's echo; messages on one channel arrive
  // in order, so once a has b's write it has also seen (and skipped) its echo.
  ASSERT_TRUE(kw::add_many(b, "theirs", {{"peer"}}).ok());
  ASSERT_TRUE(eventually([&] { return warm_has(a, "theirs", "peer"); }, 10s));
  EXPECT_EQ(a.stats().invalidations.load(), 1u);  // b's only
  EXPECT_EQ(a.round_trips() - before, 2u);        // own write + reload of "theirs"
  EXPECT_TRUE(warm_has(a, "mine", "own"));
}

TEST(RedisStore, FailedRebuildKeepsTheLastGoodEngine) {
  RedisServer server;
  kw::RedisStore store(store_options(server.port(), 200ms));
  ASSERT_TRUE(store.wait_connected(10s));
  ASSERT_TRUE(kw::add_many(store, "d", {{"good"}}).ok());
  auto good = kw::engine(store, "d");
  ASSERT_TRUE(good.ok());
  // Another tool writes what our engine refuses: a 300-byte keyword.
  const std::string huge(300, 'h');
  server.command({"SADD", "herald:kw:{d}:keywords", huge});
  server.command({"HSET", "herald:kw:{d}:meta", huge, "flag:"});
  server.command({"INCR", "herald:kw:{d}:version"});
  ASSERT_TRUE(eventually([&] { return store.stats().rebuild_failures.load() >= 1; }, 10s));
  EXPECT_EQ(store.warm("d"), good.engine);  // still serving
  EXPECT_TRUE(warm_has(store, "d", "good"));
  // Malformed metadata is a failed rebuild too.
  server.command({"HSET", "herald:kw:{d}:meta", huge, "explode"});
  server.command({"INCR", "herald:kw:{d}:version"});
  const auto failures = store.stats().rebuild_failures.load();
  ASSERT_TRUE(eventually([&] { return store.stats().rebuild_failures.load() > failures; }, 10s));
  EXPECT_EQ(store.warm("d"), good.engine);
  // Once the bad keyword is gone, the next version builds again.
  server.command({"SREM", "herald:kw:{d}:keywords", huge});
  server.command({"HDEL", "herald:kw:{d}:meta", huge});
  server.command({"INCR", "herald:kw:{d}:version"});
  EXPECT_TRUE(eventually([&] { return store.warm("d") != good.engine; }, 10s));
  EXPECT_TRUE(warm_has(store, "d", "good"));
}

TEST(RedisStore, ARedisThatLostItsDataIsNoticed) {
  RedisServer server;  // no persistence: a restart empties it
  kw::RedisStore store(store_options(server.port(), 200ms));
  ASSERT_TRUE(store.wait_connected(10s));
  auto w = kw::add_many(store, "d", {{"old"}});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(kw::engine(store, "d").ok());
  server.kill();
  server.start();
  // The version key is gone: the check after reconnect sees 0 and reloads.
  EXPECT_TRUE(eventually([&] { return store.warm("d")->entries().empty(); }, 10s));
  // A new write starts from the server clock, so it is newer than anything
  // handed out before the loss.
  ASSERT_TRUE(eventually([&] { return store.connected(); }, 10s));
  auto again = kw::add_many(store, "d", {{"new"}});
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_GT(again.version, w.version);
}

TEST(RedisStore, ColdLoadWhileRedisIsDownFailsClearly) {
  RedisServer server;
  kw::RedisStore store(store_options(server.port()));
  ASSERT_TRUE(store.wait_connected(10s));
  server.kill();
  ASSERT_TRUE(eventually([&] { return !store.connected(); }, 10s));
  auto e = kw::engine(store, "never_loaded");
  EXPECT_FALSE(e.ok());
  EXPECT_NE(e.error.find("redis unavailable"), std::string::npos) << e.error;
}

// The limit counts the dictionaries held (loaded, or read and found);
// reads of names that do not exist (an API client's typos) answer the empty
// dictionary, one round trip each, and hold nothing.
TEST(RedisStore, DictionaryLimitCountsHeldDictionariesNotUnknownReads) {
  RedisServer server;
  auto o = store_options(server.port());
  o.limits.max_dictionaries = 2;
  kw::RedisStore store(o);
  ASSERT_TRUE(store.wait_connected(10s));
  const std::uint64_t before = store.round_trips();
  for (int i = 0; i < 100; ++i) {
    auto r = kw::engine(store, "typo" + std::to_string(i));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.engine->version(), 0u);
    EXPECT_TRUE(r.engine->entries().empty());
    EXPECT_EQ(store.warm("typo" + std::to_string(i)), nullptr);  // nothing kept
  }
  EXPECT_EQ(store.round_trips() - before, 100u);
  EXPECT_TRUE(kw::load(store, "one").ok());  // held, though never written
  ASSERT_TRUE(kw::add_many(store, "two", {{"x"}}).ok());
  EXPECT_TRUE(kw::engine(store, "two").ok());  // exists: held
  auto three = kw::load(store, "three");
  EXPECT_EQ(three.error, "too many dictionaries: the limit is 2 (keywords.max_dictionaries)");
}

// A read that found nothing keeps nothing, so a dictionary created after it,
// by another store (another process: two_process_test.cpp), is seen by the
// next read, and held from then on (kept fresh by pub/sub).
TEST(RedisStore, ADictionaryCreatedAfterAReadIsSeen) {
  RedisServer server;
  kw::RedisStore reader(store_options(server.port())), writer(store_options(server.port()));
  ASSERT_TRUE(reader.wait_connected(10s) && writer.wait_connected(10s));
  auto before = kw::engine(reader, "later");
  ASSERT_TRUE(before.ok()) << before.error;
  EXPECT_TRUE(before.engine->entries().empty());
  ASSERT_TRUE(kw::add_many(writer, "later", {{"now", kw::Action::reject, "x"}}).ok());
  auto after = kw::engine(reader, "later");
  ASSERT_TRUE(after.ok()) << after.error;
  EXPECT_GT(after.engine->version(), 0u);
  ASSERT_EQ(after.engine->entries().size(), 1u);
  EXPECT_EQ(after.engine->entries()[0].keyword, "now");
  EXPECT_TRUE(warm_has(reader, "later", "now"));  // held now
  ASSERT_TRUE(kw::add_many(writer, "later", {{"then"}}).ok());
  EXPECT_TRUE(eventually([&] { return warm_has(reader, "later", "then"); }, 10s));
}

// A dictionary this process does not hold is written here: the write makes
// it exist, so the next read holds it.
TEST(RedisStore, AWriteAfterAReadOfAnUnknownDictionaryIsSeen) {
  RedisServer server;
  kw::RedisStore store(store_options(server.port()));
  ASSERT_TRUE(store.wait_connected(10s));
  ASSERT_TRUE(kw::engine(store, "fresh").ok());
  ASSERT_TRUE(kw::add_many(store, "fresh", {{"word"}}).ok());
  auto r = kw::engine(store, "fresh");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.engine->entries().size(), 1u);
  EXPECT_TRUE(warm_has(store, "fresh", "word"));
}

TEST(RedisSchema, InvalidationMessages) {
  auto inv = kw::schema::parse_invalidation("1795996556742734 0123abcd 1732900000000 my.dict");
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->version, 1795996556742734u);
  EXPECT_EQ(inv->origin, "0123abcd");
  EXPECT_EQ(inv->unix_ms, 1732900000000);
  EXPECT_EQ(inv->dict, "my.dict");
  for (const char* bad : {"", "1 a 2", "x a 2 d", "1 a y d", "1  2 d", "1 a 2 d{x}", "-1 a 2 d"})
    EXPECT_FALSE(kw::schema::parse_invalidation(bad)) << bad;
}

}  // namespace
}  // namespace herald::test
