// Structural counts (docs/live.md, "Costs"): sorters and filters never
// allocate per call; building a sorted view allocates a constant number of
// buffers, not one per comparison; a warm pipeline, and a warm room list,
// handle a steady-state update without allocating at all.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "live/filter.hpp"
#include "live/head.hpp"
#include "live/observable_vector.hpp"
#include "live/room_list/filters.hpp"
#include "live/room_list/service.hpp"
#include "live/room_list/sorters.hpp"
#include "live/room_list/view.hpp"
#include "live/sort.hpp"
#include "live/view.hpp"
#include "support/alloc_counter.hpp"

namespace herald::live {
namespace {

using herald::test::AllocationScope;

// Names longer than any small-string buffer, so a copied name would allocate.
RoomInfo long_named_room(std::uint32_t id) {
  RoomInfo r;
  r.id = RoomId{id};
  r.display_name = "A rather long room display name, number " + std::to_string(id % 97);
  r.recency_stamp = id;
  return r;
}

TEST(Allocations, CounterSeesAllocations) {
  AllocationScope scope;
  auto* p = new std::string(100, 'x');
  delete p;
  EXPECT_EQ(scope.count(), 2U);  // the string object and its buffer
}

TEST(Allocations, NonePerComparisonOrFilterCall) {
  std::vector<RoomListItem> items;
  for (std::uint32_t i = 0; i < 500; ++i) items.emplace_back(long_named_room(i));
  const RoomSorter sorter = default_room_sorter();
  const RoomFilter filter =
      filter_all({filter_non_left(), filter_not(filter_low_priority()), filter_fuzzy_name("rmn"),
                  filter_normalized_name("display")});
  AllocationScope scope;
  int less = 0;
  int kept = 0;
  for (std::size_t a = 0; a < items.size(); ++a) {
    for (std::size_t b = 0; b < items.size(); b += 7)
      less += sorter(items[a], items[b]) < 0 ? 1 : 0;
    kept += filter(items[a]) ? 1 : 0;
  }
  EXPECT_EQ(scope.count(), 0U);
  EXPECT_GT(less, 0);
  EXPECT_EQ(kept, 500);
}

// Allocations to build a sorted view of n items, for n = 1,000 and 8,000:
// equal counts mean none depend on the number of comparisons.
std::uint64_t allocations_to_sort(std::uint32_t n) {
  std::vector<RoomListItem> items;
  for (std::uint32_t i = 0; i < n; ++i) items.emplace_back(long_named_room(n - i));
  auto view = sort_by<RoomListItem>(default_room_sorter());
  AllocationScope scope;
  std::vector<RoomListItem> out = view.initialize(std::move(items));
  const std::uint64_t count = scope.count();
  EXPECT_EQ(out.size(), n);
  return count;
}

TEST(Allocations, SortingAllocatesBuffersNotPerComparison) {
  const std::uint64_t small = allocations_to_sort(1000);
  const std::uint64_t large = allocations_to_sort(8000);
  EXPECT_EQ(small, large);
  EXPECT_LE(small, 2U);  // the order vector and the output vector
}

TEST(Allocations, WarmPipelineSetAllocatesNothing) {
  ObservableVector<int> source;
  std::vector<int> init(2000);
  for (int i = 0; i < 2000; ++i) init[static_cast<std::size_t>(i)] = (i * 7919) % 1000;
  source.append(init);
  auto even = [](int x) { return x % 2 == 0; };
  Observed o(source.subscribe(), filter<int>(even) | sort<int>() | head<int>(20));
  DiffBatch<int> out;
  auto step = [&](int k) {
    source.set(static_cast<std::size_t>((k * 31) % 2000), (k * 977) % 1000);
    out.clear();
    o.poll(out);
  };
  for (int k = 0; k < 500; ++k) step(k);  // warm: buffers reach their working size
  AllocationScope scope;
  for (int k = 500; k < 1500; ++k) step(k);
  EXPECT_EQ(scope.count(), 0U);
}

class RoomListAllocations : public ::testing::Test {
 protected:
  void SetUp() override {
    for (std::uint32_t i = 0; i < 1000; ++i) {
      rooms.push_back(long_named_room(i));
      ASSERT_EQ(service.add_room(rooms.back()), RoomListError::ok);
    }
  }
  // A new message in a room, then a read marker in another.
  void message_and_read(std::uint32_t k) {
    RoomInfo& a = rooms[(k * 37) % rooms.size()];
    a.recency_stamp = 10'000 + k;
    a.latest_event_ms = 1'000'000 + k;
    ++a.unread_count;
    ASSERT_EQ(service.update_room(a), RoomListError::ok);
    RoomInfo& b = rooms[(k * 101) % rooms.size()];
    b.unread_count = 0;
    ASSERT_EQ(service.update_room(b), RoomListError::ok);
  }
  RoomListService service;
  std::vector<RoomInfo> rooms;
};

TEST_F(RoomListAllocations, SteadyStateUpdatesAllocateNothingOnceWarm) {
  RoomListView view(service, default_room_sorter(), filter_non_left(), 20);
  DiffBatch<RoomListItem> out;
  view.poll(out);
  for (std::uint32_t k = 0; k < 300; ++k) {
    message_and_read(k);
    view.poll(out);
  }
  AllocationScope scope;
  std::size_t diffs = 0;
  for (std::uint32_t k = 300; k < 1300; ++k) {
    message_and_read(k);
    view.poll(out);
    diffs += out.size();
  }
  EXPECT_EQ(scope.count(), 0U);
  EXPECT_GT(diffs, 1000U);  // the page really changed
}

TEST_F(RoomListAllocations, RenameAllocatesOnlyTheNewName) {
  RoomListView view(service, default_room_sorter(), filter_non_left(), 20);
  DiffBatch<RoomListItem> out;
  view.poll(out);
  for (std::uint32_t k = 0; k < 300; ++k) {
    message_and_read(k);
    view.poll(out);
  }
  RoomInfo& r = rooms[5];
  r.display_name = "Another rather long display name, renamed";
  AllocationScope scope;
  ASSERT_EQ(service.update_room(r), RoomListError::ok);
  view.poll(out);
  // make_shared's block, the raw copy and the normalized string.
  EXPECT_EQ(scope.count(), 3U);
}

}  // namespace
}  // namespace herald::live
