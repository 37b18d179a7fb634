// The keyword store over several Redis servers (keywords.redis.shards) and
// over a real Redis Cluster of three masters (keywords.redis.topology =
// cluster): dictionaries spread over the servers, a write in one process
// reaches another process's engine by pub/sub whichever server holds the
// dictionary, and a dictionary whose slot migrates to another master while
// it is written and read loses nothing (ASK during the migration, MOVED
// after it); and over a master that Redis Sentinel watches, through its
// failover (keywords.redis.topology = sentinel). The single-server round-trip claims are pinned by
// round_trip_claims_test.cpp, unchanged by the Router.
#include <gtest/gtest.h>

#include <set>

#include "match/store/redis_schema.hpp"
#include "redis/cluster_slots.hpp"
#include "redis_cluster.hpp"
#include "redis_sentinel.hpp"
#include "redis_server.hpp"
#include "store_support.hpp"
#include "support/eventually.hpp"

namespace herald::test {
namespace {

// A store on `topology`, its pub/sub the only way it learns of a peer's
// write (the backstop is an hour away).
kw::RedisStoreOptions topology_options(redis::Topology topology) {
  kw::RedisStoreOptions o = store_options(0);
  o.topology = std::move(topology);
  return o;
}

redis::Topology cluster_of(const RedisCluster& rc) {
  redis::Topology t;
  t.kind = redis::Topology::Kind::cluster;
  t.address = {"127.0.0.1", rc.nodes[0]->port()};
  return t;
}

// The keywords of `dict`'s engine in `store`, loaded (from Redis if cold).
std::set<std::string> keywords_of(kw::Store& store, const std::string& dict) {
  auto r = kw::load(store, dict);
  EXPECT_TRUE(r.ok()) << dict << ": " << r.error;
  std::set<std::string> out;
  if (r.engine)
    for (const auto& e : r.engine->entries()) out.insert(e.keyword);
  return out;
}

std::set<std::string> numbered_set(const std::string& prefix, std::size_t n) {
  std::set<std::string> out;
  for (const auto& e : numbered(prefix, n)) out.insert(e.keyword);
  return out;
}

// Writes one keyword to each of `n` dictionaries through `writer` while
// `reader` holds them all: every write must reach the reader's warm engine
// by pub/sub, from whichever server holds the dictionary.
void each_write_reaches_the_other_process(kw::Store& writer, kw::Store& reader, int n) {
  for (int i = 0; i < n; ++i) ASSERT_TRUE(kw::load(reader, "d" + std::to_string(i)).ok());
  for (int i = 0; i < n; ++i) {
    auto w = kw::add_many(writer, "d" + std::to_string(i), {{"late" + std::to_string(i)}});
    ASSERT_TRUE(w.ok()) << w.error;
  }
  for (int i = 0; i < n; ++i) {
    const std::string dict = "d" + std::to_string(i);
    EXPECT_TRUE(eventually([&] { return warm_has(reader, dict, "late" + std::to_string(i)); },
                           std::chrono::seconds(20)))
        << dict << ": the write's invalidation did not reach the other process";
  }
}

// A writer and a reader sharing `topology`, both connected.
struct TwoProcesses {
  explicit TwoProcesses(const redis::Topology& topology)
      : writer(topology_options(topology)), reader(topology_options(topology)) {
    EXPECT_TRUE(writer.wait_connected(10s));
    EXPECT_TRUE(reader.wait_connected(10s));
  }
  kw::RedisStore writer;
  kw::RedisStore reader;
};

constexpr int kDicts = 16;

// The writer fills d0..d15 with w0..w4; the reader, cold, reads each back.
void write_then_read_every_dictionary(TwoProcesses& p) {
  for (int i = 0; i < kDicts; ++i)
    ASSERT_TRUE(kw::add_many(p.writer, "d" + std::to_string(i), numbered("w", 5)).ok());
  for (int i = 0; i < kDicts; ++i)
    EXPECT_EQ(keywords_of(p.reader, "d" + std::to_string(i)), numbered_set("w", 5));
}

TEST(KeywordStoreOnShardedServers, DictionariesSpreadAndEveryServersWritesAreHeard) {
  RedisServer a, b;
  redis::Topology t;
  t.servers = {{"127.0.0.1", a.port()}, {"127.0.0.1", b.port()}};
  TwoProcesses p(t);
  write_then_read_every_dictionary(p);
  // Both servers hold dictionaries, and each dictionary's keys are on one.
  EXPECT_GT(a.command({"DBSIZE"}).integer, 0);
  EXPECT_GT(b.command({"DBSIZE"}).integer, 0);
  EXPECT_EQ(a.command({"DBSIZE"}).integer + b.command({"DBSIZE"}).integer, kDicts * 3);
  each_write_reaches_the_other_process(p.writer, p.reader, kDicts);
}

// topology = sentinel: the store asks the Sentinel where the master is;
// when it dies and the replica is promoted, writes fail plainly until the
// store reconnects there by itself, and then work again, with what was
// replicated before still read back.
TEST(KeywordStoreOverSentinel, FollowsAFailoverWithoutARestart) {
  RedisSentinel rs;
  redis::Topology t;
  t.kind = redis::Topology::Kind::sentinel;
  t.sentinels = {{"127.0.0.1", rs.port}};
  t.master_name = RedisSentinel::kName;
  TwoProcesses p(t);
  ASSERT_TRUE(kw::add_many(p.writer, "d", numbered("w", 5)).ok());
  EXPECT_EQ(keywords_of(p.reader, "d"), numbered_set("w", 5));
  // Replicated before the master dies (asynchronous replication could
  // lose it otherwise, which is not what this test is about).
  ASSERT_TRUE(eventually([&] { return rs.replica_in_step(); }));
  rs.fail_over();
  ASSERT_TRUE(eventually([&] { return kw::add_many(p.writer, "d", {{"after"}}).ok(); },
                         std::chrono::seconds(20)))
      << "writes did not resume on the promoted replica";
  std::set<std::string> want = numbered_set("w", 5);
  want.insert("after");
  EXPECT_TRUE(
      eventually([&] { return keywords_of(p.reader, "d") == want; }, std::chrono::seconds(20)));
  EXPECT_GT(rs.replica.command({"DBSIZE"}).integer, 0);
}

TEST(KeywordStoreOnARedisCluster, DictionariesSpreadOverTheMastersAndWritesAreHeard) {
  RedisCluster rc;
  TwoProcesses p(cluster_of(rc));
  write_then_read_every_dictionary(p);
  EXPECT_EQ(rc.masters_holding_keys(), 3);
  each_write_reaches_the_other_process(p.writer, p.reader, kDicts);
}

TEST(KeywordStoreOnARedisCluster, ADictionaryIsWrittenAndReadWhileItsSlotMigrates) {
  RedisCluster rc;
  TwoProcesses p(cluster_of(rc));
  kw::RedisStore& writer = p.writer;
  kw::RedisStore& reader = p.reader;
  ASSERT_TRUE(kw::add_many(writer, "moving", numbered("before", 20)).ok());
  ASSERT_EQ(keywords_of(reader, "moving"), numbered_set("before", 20));

  const std::uint16_t slot =
      redis::key_slot(kw::schema::keys(kw::kDefaultKeyPrefix, "moving").version);
  RedisServer* source = rc.owner(slot);
  ASSERT_NE(source, nullptr);
  RedisServer* target = rc.other(source);

  // Step 1: the keys are on the target, the source answers ASK.
  rc.start_migration(slot, *source, *target);
  const std::uint64_t round_trips = writer.round_trips();
  auto w = kw::add_many(writer, "moving", numbered("during", 20));
  ASSERT_TRUE(w.ok()) << w.error;
  EXPECT_EQ(w.changed, 20u);
  // The old master answered ASK and the write went again to the importing
  // one (and once more as EVAL if its script cache was empty).
  EXPECT_GE(writer.round_trips() - round_trips, 2u);
  std::set<std::string> expected = numbered_set("before", 20);
  for (const auto& k : numbered_set("during", 20)) expected.insert(k);
  // A process that never held it reads it whole from the importing master.
  kw::RedisStore cold(topology_options(cluster_of(rc)));
  ASSERT_TRUE(cold.wait_connected(10s));
  EXPECT_EQ(keywords_of(cold, "moving"), expected);
  // The reader, holding it, hears of the write and reloads it.
  EXPECT_TRUE(
      eventually([&] { return warm_has(reader, "moving", "during19"); }, std::chrono::seconds(20)));
  // (The importing master answers plain commands MOVED until step 2, so
  // the keys are counted there after it.)
  EXPECT_EQ(source->command({"DBSIZE"}).integer, 0) << "nothing written on the old master";

  // Step 2: the slot is the target's; the source answers MOVED.
  rc.end_migration(slot, *target);
  auto rm = kw::remove_many(writer, "moving", {"before0", "during0"});
  ASSERT_TRUE(rm.ok()) << rm.error;
  EXPECT_EQ(rm.changed, 2u);
  expected.erase("before0");
  expected.erase("during0");
  EXPECT_TRUE(
      eventually([&] { return !warm_has(reader, "moving", "during0"); }, std::chrono::seconds(20)));
  EXPECT_EQ(keywords_of(reader, "moving"), expected);
  kw::RedisStore after(topology_options(cluster_of(rc)));
  ASSERT_TRUE(after.wait_connected(10s));
  EXPECT_EQ(keywords_of(after, "moving"), expected);
  EXPECT_EQ(target->command({"SCARD", kw::schema::keys(kw::kDefaultKeyPrefix, "moving").keywords})
                .integer,
            38);
  EXPECT_EQ(source->command({"DBSIZE"}).integer, 0);
}

TEST(KeywordStoreOnARedisCluster, AnAddressThatIsNotAClusterFailsWithTheKeyToFix) {
  RedisServer plain;
  redis::Topology t;
  t.kind = redis::Topology::Kind::cluster;
  t.address = {"127.0.0.1", plain.port()};
  t.section = "keywords.redis";
  try {
    kw::RedisStore store(topology_options(t));
    FAIL() << "a plain server accepted as a Redis Cluster";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("keywords.redis.address"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace herald::test
