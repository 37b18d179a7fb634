// ModeratingBroker on running shards, in front of the real embedded broker
// and a real MemoryStore: a namespace whose own engine is being built makes
// its publications wait, in order, while the shard serves everything else;
// and an edit moderates the next publication.
//
// The builds here are held by the test (a BuildRunner that keeps them until
// the test runs them on its own thread), so what the shard does while a
// build has not even started is observed, not timed.
#include "gateway/moderation/moderating_broker.hpp"

#include <gtest/gtest.h>

#include <boost/asio/post.hpp>

#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "core/metrics/registry.hpp"
#include "gateway/broker/memory_broker.hpp"
#include "match/store/memory_store.hpp"
#include "match/store/sync.hpp"
#include "support/eventually.hpp"

namespace herald::gateway::moderation {
namespace {

using namespace std::chrono_literals;
using match::store::Action;

using ::herald::test::eventually;

struct ModeratingBrokerTest : ::testing::Test {
  ShardPool pool{1};
  match::store::MemoryStore store;
  metrics::Registry registry;
  Options options;
  std::unique_ptr<broker::MemoryBroker> inner;
  std::unique_ptr<Moderator> moderator;
  std::unique_ptr<ModeratingBroker> broker;

  std::mutex mutex;  // guards what follows
  std::vector<std::function<void()>> held;
  std::map<int, protocol::PublishResult> results;
  int next_id = 0;

  void SetUp() override {
    add("a", {"first", Action::mask});
    add("b", {"other", Action::mask});
    RoomOptions big = options.rooms;
    big.moderation.dictionaries = "a,b";  // two dictionaries: an engine of its own
    options.namespaces["big"] = big;
  }
  // `hold`: builds wait for run_held(); otherwise the moderator's own thread.
  void start(bool hold) {
    BuildRunner runner;
    if (hold) {
      runner = [this](std::function<void()> build) {
        std::lock_guard lock(mutex);
        held.push_back(std::move(build));
      };
    }
    moderator = std::make_unique<Moderator>(store, options, registry, runner);
    inner = std::make_unique<broker::MemoryBroker>(
        options, pool, [](unsigned, const std::string&, const fanout::MessagePtr&) {}, registry);
    broker = std::make_unique<ModeratingBroker>(*inner, *moderator, pool);
    broker->start();
    pool.start();
  }
  void TearDown() override {
    if (broker) broker->stop();
    pool.stop_and_join();
  }

  void add(const std::string& dict, match::store::Entry e) {
    ASSERT_TRUE(match::store::add_many(store, dict, {std::move(e)}).ok());
  }
  // Publishes from shard 0; the result lands in results[id].
  int publish(const std::string& room, const std::string& data) {
    int id;
    {
      std::lock_guard lock(mutex);
      id = next_id++;
    }
    boost::asio::post(pool[0].ctx, [this, id, room, data] {
      broker->publish(0, protocol::PublishRequest{room, data, ""},
                      [this, id](protocol::PublishResult r) {
                        std::lock_guard lock(mutex);
                        results[id] = std::move(r);
                      });
    });
    return id;
  }
  bool answered(int id) {
    std::lock_guard lock(mutex);
    return results.count(id) == 1;
  }
  protocol::PublishResult result(int id) {
    std::lock_guard lock(mutex);
    return results.at(id);
  }
  std::size_t held_builds() {
    std::lock_guard lock(mutex);
    return held.size();
  }
  // Runs the held builds here, on the test's thread.
  void run_held() {
    std::vector<std::function<void()>> builds;
    {
      std::lock_guard lock(mutex);
      builds.swap(held);
    }
    for (auto& b : builds) b();
  }
  // Whether shard 0 runs a handler posted now (it is not stalled).
  bool shard_answers() {
    std::promise<void> ran;
    auto f = ran.get_future();
    boost::asio::post(pool[0].ctx, [&ran] { ran.set_value(); });
    return f.wait_for(20s) == std::future_status::ready;
  }
  // The pushes of `room`'s history, oldest first.
  std::vector<std::string> history(const std::string& room) {
    std::promise<std::vector<std::string>> p;
    boost::asio::post(pool[0].ctx, [&] {
      broker->history(0, protocol::HistoryRequest{room, std::nullopt, std::nullopt, false},
                      [&](protocol::HistoryResult r) {
                        std::vector<std::string> out;
                        for (const auto& f : r.publications) out.push_back(f->text);
                        p.set_value(std::move(out));
                      });
    });
    return p.get_future().get();
  }
  double metric(const std::string& name) {
    std::string text = registry.render();
    auto at = text.find("\n" + name + " ");
    return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
  }
};

bool holds(const std::string& push, const std::string& data) {
  return push.find("\"data\":" + data) != std::string::npos;
}

TEST_F(ModeratingBrokerTest, ABuildHoldsItsNamespaceNotTheShard) {
  start(true);
  const int p1 = publish("big:r", R"("first other second")");
  ASSERT_TRUE(eventually([&] { return held_builds() == 1; }));
  const int p2 = publish("big:r", R"("second")");  // queues behind p1
  const int p3 = publish("lobby", R"("first")");   // another namespace, same shard
  ASSERT_TRUE(eventually([&] { return answered(p3); }));
  EXPECT_FALSE(result(p3).error);
  EXPECT_TRUE(shard_answers());
  // The build has not run, so neither waiting publication was decided.
  EXPECT_FALSE(answered(p1));
  EXPECT_FALSE(answered(p2));
  EXPECT_EQ(held_builds(), 1u);  // p2 asked for no second build

  add("a", {"second", Action::mask});  // an edit while they wait
  run_held();
  ASSERT_TRUE(eventually([&] { return answered(p1) && answered(p2); }));
  EXPECT_EQ(result(p1).offset, 1u);  // in the order they were sent
  EXPECT_EQ(result(p2).offset, 2u);
  auto pushes = history("big:r");
  ASSERT_EQ(pushes.size(), 2u);
  EXPECT_TRUE(holds(pushes[0], R"("***** ***** ******")")) << pushes[0];
  EXPECT_TRUE(holds(pushes[1], R"("******")")) << pushes[1];

  // An edit whose reply came before the publication moderates it.
  add("b", {"third", Action::mask});
  const int p4 = publish("big:r", R"("third")");
  ASSERT_TRUE(eventually([&] { return held_builds() == 1; }));
  EXPECT_FALSE(answered(p4));
  run_held();
  ASSERT_TRUE(eventually([&] { return answered(p4); }));
  pushes = history("big:r");
  ASSERT_EQ(pushes.size(), 3u);
  EXPECT_TRUE(holds(pushes[2], R"("*****")")) << pushes[2];
  EXPECT_EQ(metric("herald_moderation_builds_total"), 2);
}

TEST_F(ModeratingBrokerTest, WaitingIsBoundedAndKeepsTheOrder) {
  start(true);
  std::vector<int> ids;
  for (std::size_t i = 0; i < ModeratingBroker::kMaxWaiting; ++i)
    ids.push_back(publish("big:r", "\"" + std::to_string(i) + "\""));
  const int over = publish("big:r", R"("one too many")");
  ASSERT_TRUE(eventually([&] { return answered(over); }));
  ASSERT_TRUE(result(over).error);
  EXPECT_EQ(result(over).error->code, protocol::ErrorCode::unavailable);
  EXPECT_NE(result(over).error->message.find("too many publications wait"), std::string::npos);
  run_held();
  ASSERT_TRUE(eventually([&] { return answered(ids.back()); }));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_FALSE(result(ids[i]).error) << i;
    EXPECT_EQ(result(ids[i]).offset, i + 1);
  }
}

// heraldd's path: builds on the moderator's own thread.
TEST_F(ModeratingBrokerTest, AnEditModeratesTheNextPublicationWithTheBuilderThread) {
  start(false);
  for (const char* word : {"second", "third", "fourth"}) {
    add("b", {word, Action::mask});
    const int id = publish("big:r", "\"" + std::string(word) + " first\"");
    ASSERT_TRUE(eventually([&] { return answered(id); }));
    ASSERT_FALSE(result(id).error);
    const std::string masked = std::string(std::strlen(word), '*') + " *****";
    EXPECT_TRUE(holds(history("big:r").back(), "\"" + masked + "\"")) << word;
  }
}

}  // namespace
}  // namespace herald::gateway::moderation
