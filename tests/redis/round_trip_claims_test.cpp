// Each test here pins one round-trip claim that Herald publishes for its
// shared keyword dictionaries (docs/benchmarks.md, K3; docs/match.md). When
// a test and the docs disagree, the docs are wrong: these counts are
// measured at the Redis client's single counting point against a real
// redis-server, the prose was written by hand. Change the docs to match
// these tests, never the other way around.
//
// Counting rule (redis/client.hpp): one Client::send is one round trip,
// whatever the number of commands in its pipeline; the first test checks
// the counter itself, because a counter that counted commands would
// inflate every figure below.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "redis/client.hpp"
#include "redis_server.hpp"
#include "store_support.hpp"

namespace herald::test {
namespace {

class RoundTripClaims : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<kw::RedisStore>(store_options(server_.port()));
    ASSERT_TRUE(store_->wait_connected(10s));
  }
  // A dictionary that this test's store has loaded and that holds `n` keywords.
  void warm_dict(const std::string& dict, std::size_t n) {
    if (n > 0) {
      ASSERT_TRUE(kw::add_many(*store_, dict, numbered("w", n)).ok());
    }
    auto r = kw::engine(*store_, dict);
    ASSERT_TRUE(r.ok()) << r.error;
  }
  std::uint64_t rt() const { return store_->round_trips(); }

  RedisServer server_;
  std::unique_ptr<kw::RedisStore> store_;
};

TEST_F(RoundTripClaims, PipelineOfNCommandsCountsAsOne) {
  boost::asio::io_context io;
  redis::Options o;
  o.port = server_.port();
  redis::Client client(io, o);
  client.start();
  while (!client.ready()) io.run_one_for(100ms);
  const std::uint64_t before = client.round_trips();
  std::vector<redis::Command> pipeline;
  for (int i = 0; i < 100; ++i) pipeline.push_back({"SET", "k" + std::to_string(i), "v"});
  std::optional<redis::Result> result;
  client.execute(pipeline, [&](redis::Result r) { result = std::move(r); });
  while (!result) io.run_one_for(100ms);
  ASSERT_TRUE(result->ok()) << result->error;
  EXPECT_EQ(result->replies.size(), 100u);
  EXPECT_EQ(client.round_trips() - before, 1u);
  // All 100 commands did reach the server: the count is of round trips, not of work lost.
  EXPECT_EQ(server_.command({"DBSIZE"}).integer, 100);
  client.stop();
}

TEST_F(RoundTripClaims, FindWarmIsZero) {
  warm_dict("warm", 100);
  const std::uint64_t before = rt();
  std::vector<kw::Hit> hits;
  for (int i = 0; i < 1000; ++i) {
    auto r = kw::engine(*store_, "warm");
    ASSERT_TRUE(r.ok());
    r.engine->find("say w7 and w42", hits);
    ASSERT_EQ(hits.size(), 2u);
  }
  EXPECT_EQ(rt() - before, 0u);
  EXPECT_GE(store_->stats().hits.load(), 1000u);
}

TEST_F(RoundTripClaims, FindManyWarmIsZero) {
  warm_dict("many", 100);
  const std::uint64_t before = rt();
  auto e = store_->warm("many");
  ASSERT_TRUE(e);
  std::vector<kw::Hit> hits;
  for (int i = 0; i < 100; ++i) {
    e->find("w" + std::to_string(i), hits);
    ASSERT_FALSE(hits.empty());
  }
  EXPECT_EQ(rt() - before, 0u);
}

TEST_F(RoundTripClaims, FindColdIsOne) {
  {
    kw::RedisStore writer(store_options(server_.port()));
    ASSERT_TRUE(writer.wait_connected(10s));
    ASSERT_TRUE(kw::add_many(writer, "cold", numbered("c", 1000)).ok());
  }
  const std::uint64_t before = rt();
  auto r = kw::engine(*store_, "cold");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.engine->entries().size(), 1000u);
  EXPECT_EQ(rt() - before, 1u);
}

TEST_F(RoundTripClaims, AddIsOne) {
  warm_dict("add", 10);
  const std::uint64_t before = rt();
  auto w = kw::add_many(*store_, "add", {{"fresh", kw::Action::reject, "spam"}});
  ASSERT_TRUE(w.ok()) << w.error;
  EXPECT_EQ(rt() - before, 1u);
  // The writer's own engine already has it: applied locally, no reload.
  EXPECT_TRUE(warm_has(*store_, "add", "fresh"));
  EXPECT_EQ(rt() - before, 1u);
}

TEST_F(RoundTripClaims, AddManyOfOneIsOne) {
  warm_dict("one", 10);
  const std::uint64_t before = rt();
  ASSERT_TRUE(kw::add_many(*store_, "one", numbered("x", 1)).ok());
  EXPECT_EQ(rt() - before, 1u);
}

TEST_F(RoundTripClaims, AddManyOfThousandIsOne) {
  warm_dict("thousand", 10);
  const std::uint64_t before = rt();
  auto w = kw::add_many(*store_, "thousand", numbered("x", 1000));
  ASSERT_TRUE(w.ok()) << w.error;
  EXPECT_EQ(w.changed, 1000u);
  EXPECT_EQ(rt() - before, 1u);
  EXPECT_TRUE(warm_has(*store_, "thousand", "x999"));
}

TEST_F(RoundTripClaims, AddToADictionaryNotLoadedHereIsOne) {
  const std::uint64_t before = rt();
  ASSERT_TRUE(kw::add_many(*store_, "unloaded", numbered("x", 1000)).ok());
  EXPECT_EQ(rt() - before, 1u);
}

TEST_F(RoundTripClaims, RemoveIsOne) {
  warm_dict("remove", 10);
  const std::uint64_t before = rt();
  auto w = kw::remove_many(*store_, "remove", {"w3"});
  ASSERT_TRUE(w.ok()) << w.error;
  EXPECT_EQ(w.changed, 1u);
  EXPECT_EQ(rt() - before, 1u);
  EXPECT_FALSE(warm_has(*store_, "remove", "w3"));
}

TEST_F(RoundTripClaims, RemoveManyIsOne) {
  warm_dict("remove_many", 1000);
  std::vector<std::string> gone;
  for (int i = 0; i < 500; ++i) gone.push_back("w" + std::to_string(i));
  const std::uint64_t before = rt();
  auto w = kw::remove_many(*store_, "remove_many", gone);
  ASSERT_TRUE(w.ok()) << w.error;
  EXPECT_EQ(w.changed, 500u);
  EXPECT_EQ(rt() - before, 1u);
}

TEST_F(RoundTripClaims, FlushIsOne) {
  warm_dict("flush", 1000);
  const std::uint64_t before = rt();
  auto w = kw::flush(*store_, "flush");
  ASSERT_TRUE(w.ok()) << w.error;
  EXPECT_EQ(w.changed, 1000u);
  EXPECT_EQ(rt() - before, 1u);
  EXPECT_EQ(store_->warm("flush")->entries().size(), 0u);
}

}  // namespace
}  // namespace herald::test
