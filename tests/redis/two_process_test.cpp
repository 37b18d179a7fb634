// Two processes sharing one dictionary through a real redis-server: this
// test process holds a RedisStore, and kw_peer (peer_main.cpp) runs as the
// other process. Bounds below are generous waits ("within 10 s"), never
// measured times.
//
// How pub/sub is blocked for the backstop test: the reader subscribes to a
// different channel (RedisStoreOptions::channel) than the one the writer
// publishes on, so the invalidation is lost exactly as a dropped message or
// a subscription gap would lose it, with no fake in between.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "redis_server.hpp"
#include "store_support.hpp"
#include "support/process.hpp"

namespace herald::test {
namespace {

RunResult peer(std::uint16_t port, std::vector<std::string> args) {
  std::vector<std::string> argv = {KW_PEER_PATH, std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, {}, std::chrono::seconds(120));
}

TEST(TwoProcesses, PeerWriteArrivesByPubSub) {
  RedisServer server;
  kw::RedisStore reader(store_options(server.port()));  // no backstop: only pub/sub can tell
  ASSERT_TRUE(reader.wait_connected(10s));
  ASSERT_TRUE(kw::load(reader, "shared").ok());  // held, as moderation holds its dictionaries
  const std::uint64_t rt_before = reader.round_trips();

  auto r = peer(server.port(), {"add", "shared", "spam", "scam"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(eventually([&] { return warm_has(reader, "shared", "scam"); }, 10s));
  EXPECT_TRUE(warm_has(reader, "shared", "spam"));
  EXPECT_EQ(reader.stats().invalidations.load(), 1u);
  EXPECT_GE(reader.stats().last_invalidation_lag_ms.load(), 0);
  // The reader read the dictionary once more, and nothing else.
  EXPECT_EQ(reader.round_trips() - rt_before, 1u);
}

TEST(TwoProcesses, BackstopCatchesAWriteWhoseMessageNeverArrives) {
  RedisServer server;
  auto o = store_options(server.port(), 200ms);
  o.channel = "herald:kw:elsewhere";  // the writer publishes on the default channel
  kw::RedisStore reader(o);
  ASSERT_TRUE(reader.wait_connected(10s));
  ASSERT_TRUE(kw::load(reader, "shared").ok());

  auto r = peer(server.port(), {"add", "shared", "phish"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(eventually([&] { return warm_has(reader, "shared", "phish"); }, 10s));
  // It came by polling the version key: no message was ever received.
  EXPECT_EQ(reader.stats().last_invalidation_lag_ms.load(), -1);
  EXPECT_GE(reader.stats().invalidations.load(), 1u);
}

// A read of a dictionary nobody wrote keeps nothing; another process then
// creates it, and the next read here sees it.
TEST(TwoProcesses, ADictionaryCreatedByAPeerAfterAReadIsSeen) {
  RedisServer server;
  kw::RedisStore reader(store_options(server.port()));
  ASSERT_TRUE(reader.wait_connected(10s));
  auto before = kw::engine(reader, "created");
  ASSERT_TRUE(before.ok()) << before.error;
  EXPECT_EQ(before.engine->version(), 0u);
  auto r = peer(server.port(), {"add", "created", "spam"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto after = kw::engine(reader, "created");
  ASSERT_TRUE(after.ok()) << after.error;
  EXPECT_GT(after.engine->version(), 0u);
  EXPECT_TRUE(warm_has(reader, "created", "spam"));
}

TEST(TwoProcesses, ConcurrentWritersLoseNoUpdate) {
  RedisServer server;
  kw::RedisStore local(store_options(server.port()));
  ASSERT_TRUE(local.wait_connected(10s));
  auto seed = kw::add_many(local, "race", {{"seed", kw::Action::flag, ""}});
  ASSERT_TRUE(seed.ok()) << seed.error;
  ASSERT_TRUE(kw::engine(local, "race").ok());

  // Two peer processes and this one write to the same dictionary at once.
  constexpr int kEach = 200;
  std::thread a([&] {
    auto r = peer(server.port(), {"add-loop", "race", "a", std::to_string(kEach)});
    EXPECT_EQ(r.exit_code, 0) << r.output;
  });
  std::thread b([&] {
    auto r = peer(server.port(), {"add-loop", "race", "b", std::to_string(kEach)});
    EXPECT_EQ(r.exit_code, 0) << r.output;
  });
  for (int i = 0; i < kEach; ++i) {
    auto w = kw::add_many(local, "race", {{"c" + std::to_string(i), kw::Action::mask, ""}});
    ASSERT_TRUE(w.ok()) << w.error;
  }
  a.join();
  b.join();

  const std::size_t total = 1 + 3 * kEach;
  EXPECT_EQ(server.command({"SCARD", "herald:kw:{race}:keywords"}).integer,
            static_cast<std::int64_t>(total));
  EXPECT_EQ(server.command({"HLEN", "herald:kw:{race}:meta"}).integer,
            static_cast<std::int64_t>(total));
  // Every write bumped the version exactly once.
  EXPECT_EQ(server.command({"GET", "herald:kw:{race}:version"}).str,
            std::to_string(seed.version + 3 * kEach));
  // And this process converges on all of it.
  EXPECT_TRUE(eventually(
      [&] {
        auto e = local.warm("race");
        return e && e->entries().size() == total;
      },
      10s));
}

TEST(TwoProcesses, RedisKilledAndRestartedMidTest) {
  RedisServer server(/*persist=*/true);  // fsync per write: the data survives SIGKILL
  auto o = store_options(server.port(), 300ms);
  o.redis.command_timeout = 1000ms;
  kw::RedisStore store(o);
  ASSERT_TRUE(store.wait_connected(10s));
  ASSERT_TRUE(kw::add_many(store, "d", numbered("base", 100)).ok());
  ASSERT_TRUE(kw::engine(store, "d").ok());

  // Searches run all along, from another thread; none may fail.
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> searches{0}, failures{0};
  std::thread searcher([&] {
    std::vector<kw::Hit> hits;
    while (!stop.load()) {
      auto e = store.warm("d");
      if (!e) {
        failures.fetch_add(1);
        continue;
      }
      e->find("xx base42 yy", hits);
      if (hits.size() != 1) failures.fetch_add(1);
      searches.fetch_add(1);
    }
  });

  server.kill();
  ASSERT_TRUE(eventually([&] { return !store.connected(); }, 10s));
  auto down = kw::add_many(store, "d", {{"during", kw::Action::flag, ""}});
  EXPECT_FALSE(down.ok());
  EXPECT_NE(down.error.find("redis unavailable at 127.0.0.1:" + std::to_string(server.port())),
            std::string::npos)
      << down.error;
  const std::uint64_t searches_while_down = searches.load();

  server.start();
  // A peer writes at once, likely before our subscription is back: only the
  // version check on reconnect (or the backstop) can bring it to us.
  auto r = peer(server.port(), {"add", "d", "after_restart"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(eventually([&] { return warm_has(store, "d", "after_restart"); }, 10s));
  ASSERT_TRUE(eventually([&] { return store.connected(); }, 10s));
  auto up = kw::add_many(store, "d", {{"recovered", kw::Action::flag, ""}});
  EXPECT_TRUE(up.ok()) << up.error;
  EXPECT_TRUE(warm_has(store, "d", "recovered"));
  EXPECT_TRUE(warm_has(store, "d", "base99"));

  EXPECT_TRUE(eventually([&] { return searches.load() > searches_while_down; }));
  stop = true;
  searcher.join();
  EXPECT_EQ(failures.load(), 0u);
}

}  // namespace
}  // namespace herald::test
