#include "live/detail/slot_vector.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "support/alloc_counter.hpp"

namespace herald::live::detail {
namespace {

template <class T>
std::vector<T> contents(const SlotVector<T>& s) {
  return s.copy(0, s.size());
}

TEST(SlotVector, BehavesAsASequence) {
  SlotVector<int> s;
  s.assign({1, 2, 3});
  s.insert(1, 9);
  s.erase(0);
  s.push_back(4);
  s.set(0, 8);
  EXPECT_EQ(contents(s), (std::vector<int>{8, 2, 3, 4}));
  s.truncate(2);
  EXPECT_EQ(contents(s), (std::vector<int>{8, 2}));
  s.truncate(5);  // longer: no change
  EXPECT_EQ(s.size(), 2U);
  const std::vector<int> more = {5, 6};
  s.append(more.begin(), more.end());
  EXPECT_EQ(contents(s), (std::vector<int>{8, 2, 5, 6}));
  EXPECT_EQ(s.copy(1, 3), (std::vector<int>{2, 5}));
  s.clear();
  EXPECT_TRUE(s.empty());
}

TEST(SlotVector, FreedSlotsReleaseTheirValueAndAreReused) {
  SlotVector<std::shared_ptr<int>> s;
  auto p = std::make_shared<int>(1);
  s.push_back(p);
  EXPECT_EQ(p.use_count(), 2);
  s.erase(0);
  EXPECT_EQ(p.use_count(), 1);  // the slot no longer holds it
  for (int i = 0; i < 64; ++i) s.push_back(nullptr);
  herald::test::AllocationScope scope;
  for (int i = 0; i < 1000; ++i) {
    s.erase(static_cast<std::size_t>(i % 64));
    s.insert(static_cast<std::size_t>((i * 7) % 64), nullptr);
  }
  EXPECT_EQ(scope.count(), 0U);  // as many inserts as erases: no growth
  EXPECT_EQ(s.size(), 64U);
}

}  // namespace
}  // namespace herald::live::detail
