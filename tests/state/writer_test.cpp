#include "state/writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "store_fixture.hpp"

namespace herald::state {
namespace {

using test::fresh_dir;
using test::open_store;

// Random changes over a few users and rooms: joins, leaves, markers, flags.
std::vector<Change> random_changes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int k) { return std::uniform_int_distribution<int>(0, k - 1)(rng); };
  std::vector<Change> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string user = "u" + std::to_string(pick(20));
    const std::string room = "r" + std::to_string(pick(30));
    switch (pick(4)) {
      case 0:
        out.emplace_back(Join{user, room});
        break;
      case 1:
        out.emplace_back(Leave{user, room});
        break;
      case 2:
        out.emplace_back(SetRead{user, room, {"e", i}});
        break;
      default:
        out.emplace_back(AddMention{user, room});
    }
  }
  return out;
}

// Submitted from several threads at once through the writer, or applied one
// at a time: the same outcome for each change (submission order decides,
// so each thread's share is compared with the twin's run of that order),
// and the same store.
TEST(StateWriter, BatchesGiveWhatApplyingEachChangeAloneGives) {
  auto dir = fresh_dir("twin");
  auto batched = open_store({.dir = dir / "batched", .max_rooms_per_user = 10});
  auto plain = open_store({.dir = dir / "plain", .max_rooms_per_user = 10});
  ASSERT_TRUE(batched && plain);
  const std::vector<Change> changes = random_changes(3000, 11);
  // Submission order is the order of a lock-free ticket, so the twin can
  // replay it: each thread takes the next change and submits it under the
  // ticket it drew.
  std::vector<std::optional<Result<Outcome, std::string>>> got(changes.size());
  std::vector<std::size_t> order;
  std::mutex order_mu;
  {
    Writer writer(*batched, {.max_delay = std::chrono::milliseconds(5), .max_batch = 64});
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (;;) {
          std::lock_guard lock(order_mu);  // the submission order, recorded
          const std::size_t i = next.fetch_add(1);
          if (i >= changes.size()) return;
          order.push_back(i);
          ASSERT_TRUE(writer.submit(
              changes[i], [&got, i](const Result<Outcome, std::string>& r) { got[i] = r; }));
        }
      });
    }
    for (auto& t : threads) t.join();
    writer.flush();
    // Batching happened: far fewer commits than changes.
    EXPECT_LT(writer.batches(), changes.size() / 4);
  }
  for (std::size_t i : order) {
    auto alone = plain->apply(std::span(&changes[i], 1));
    ASSERT_TRUE(alone);
    ASSERT_TRUE(got[i] && *got[i]) << i;
    EXPECT_EQ(**got[i], (*alone)[0]) << "change " << i;
  }
  for (int u = 0; u < 20; ++u) {
    const std::string user = "u" + std::to_string(u);
    EXPECT_EQ(batched->rooms_of(user).value(), plain->rooms_of(user).value()) << user;
  }
  std::filesystem::remove_all(dir);
}

TEST(StateWriter, ABatchClosesWhenFullAndFlushClosesItAtOnce) {
  auto dir = fresh_dir("full");
  auto store = open_store({.dir = dir});
  ASSERT_TRUE(store);
  // A delay no test waits for: only a full batch, a flush or the stop
  // closes one.
  Writer writer(*store, {.max_delay = std::chrono::hours(1), .max_batch = 100});
  std::atomic<int> answered{0};
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(writer.submit(Join{"u" + std::to_string(i), "lobby"},
                              [&](const Result<Outcome, std::string>& r) {
                                EXPECT_TRUE(r && *r == Outcome::done);
                                ++answered;
                              }));
  }
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(writer.submit(Leave{"u" + std::to_string(i), "lobby"}));
  writer.flush();
  EXPECT_EQ(answered.load(), 1000);
  // 1,030 changes: ten full batches and the flushed rest, at most one more
  // for a batch the writer opened before the first hundred were queued.
  EXPECT_GE(writer.batches(), 11U);
  EXPECT_LE(writer.batches(), 12U);
  EXPECT_EQ(store->members_of("lobby").value().size(), 970U);
  std::filesystem::remove_all(dir);
}

TEST(StateWriter, AFullQueueRefusesAndAFullMapAnswersEveryChangeWithTheError) {
  auto dir = fresh_dir("bounds");
  auto store = open_store({.dir = dir, .max_bytes = 64 * 1024});
  ASSERT_TRUE(store);
  std::vector<std::string> errors;
  std::mutex mu;
  {
    Writer writer(*store,
                  {.max_delay = std::chrono::hours(1), .max_batch = 5000, .max_queue = 3000});
    std::size_t accepted = 0;
    for (int i = 0; i < 3500; ++i) {
      if (writer.submit(Join{"user-" + std::to_string(i), "room"},
                        [&](const Result<Outcome, std::string>& r) {
                          std::lock_guard lock(mu);
                          if (!r) errors.push_back(r.error());
                        }))
        ++accepted;
    }
    EXPECT_EQ(accepted, 3000U);  // the writer waits for the full batch: nothing left the queue
    writer.flush();
  }
  ASSERT_EQ(errors.size(), 3000U);
  EXPECT_THAT(errors.front(), ::testing::HasSubstr("state.max_bytes"));
  std::filesystem::remove_all(dir);
}

TEST(StateWriter, StoppingAppliesWhatIsQueued) {
  auto dir = fresh_dir("stop");
  auto store = open_store({.dir = dir});
  ASSERT_TRUE(store);
  {
    Writer writer(*store, {.max_delay = std::chrono::hours(1), .max_batch = 1000});
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(writer.submit(Join{"u" + std::to_string(i), "r"}));
  }
  EXPECT_EQ(store->members_of("r").value().size(), 10U);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace herald::state
