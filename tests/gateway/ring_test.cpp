#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "gateway/broker/publication_ring.hpp"

namespace herald::gateway {
namespace {

broker::StoredPublication pub(std::uint64_t offset, std::int64_t at = 0) {
  return broker::StoredPublication{offset, at, fanout::make_message(std::to_string(offset))};
}

TEST(PublicationRing, KeepsTheNewestUpToCapacity) {
  broker::PublicationRing r(3);
  for (std::uint64_t o = 1; o <= 5; ++o) r.push(pub(o));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.front().offset, 3u);
  EXPECT_EQ(r.back().offset, 5u);
  EXPECT_EQ(r.at(1).frame->text, "4");
}

TEST(PublicationRing, FirstAfterIsArithmetic) {
  broker::PublicationRing r(4);
  for (std::uint64_t o = 10; o <= 13; ++o) r.push(pub(o));
  EXPECT_EQ(r.first_after(0), 0u);
  EXPECT_EQ(r.first_after(9), 0u);
  EXPECT_EQ(r.first_after(10), 1u);
  EXPECT_EQ(r.first_after(12), 3u);
  EXPECT_EQ(r.first_after(13), 4u);
  EXPECT_EQ(r.first_after(99), 4u);
}

TEST(PublicationRing, ExpireDropsOldEntriesOnly) {
  broker::PublicationRing r(5);
  r.push(pub(1, 100));
  r.push(pub(2, 200));
  r.push(pub(3, 300));
  r.expire(200);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.front().offset, 3u);
  r.push(pub(4, 400));  // still consecutive after wrapping the head
  EXPECT_EQ(r.first_after(3), 1u);
  r.expire(1000);
  EXPECT_TRUE(r.empty());
}

TEST(PublicationRing, ZeroCapacityKeepsNothing) {
  broker::PublicationRing r(0);
  r.push(pub(1));
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.first_after(0), 0u);
}

TEST(PublicationRing, AllocatesNothingUntilUsedAndGivesItBackWhenEmptied) {
  broker::PublicationRing r(1'000'000);  // rooms.history_size at its maximum
  EXPECT_EQ(r.allocated(), 0u);
  r.expire(0);
  EXPECT_EQ(r.allocated(), 0u);
  for (std::uint64_t o = 1; o <= 5; ++o) r.push(pub(o, 10));
  EXPECT_LE(r.allocated(), 8u);  // grown with use, not to the capacity
  r.expire(10);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.allocated(), 0u);
}

// The growing ring against the obvious model (a deque trimmed to the
// capacity), over random pushes and expiries, after every step.
TEST(PublicationRing, MatchesABoundedDequeOverRandomSteps) {
  std::mt19937_64 rng(17);
  for (std::size_t capacity : {1u, 2u, 3u, 7u, 64u}) {
    broker::PublicationRing r(capacity);
    std::deque<broker::StoredPublication> model;
    std::uint64_t next = 1;
    std::int64_t now = 0;
    std::uniform_int_distribution<std::int64_t> age(0, 19);
    for (int step = 0; step < 5000; ++step) {
      ++now;
      if (rng() % 4 != 0) {
        r.push(pub(next, now));
        model.push_back(pub(next, now));
        ++next;
        if (model.size() > capacity) model.pop_front();
      } else {
        const std::int64_t cutoff = now - age(rng);
        r.expire(cutoff);
        while (!model.empty() && model.front().at_ns <= cutoff) model.pop_front();
      }
      ASSERT_EQ(r.size(), model.size()) << "capacity " << capacity << " step " << step;
      ASSERT_LE(r.allocated(), capacity);
      for (std::size_t i = 0; i < model.size(); ++i)
        ASSERT_EQ(r.at(i).offset, model[i].offset) << "capacity " << capacity << " step " << step;
      if (!model.empty()) {
        ASSERT_EQ(r.first_after(model.front().offset), 1u);
      }
    }
  }
}

}  // namespace
}  // namespace herald::gateway
