// L1 and L2 (docs/benchmarks.md, where each workload is written out).
//
// L1, the Matrix shape: 1,000 rooms that have each received 1,000 events
// (built untimed); timed: create the room list view (non-left filter,
// lexicographic sorter unsent-first/recency/name, page of 20) up to its first
// Reset of 20 items. Matrix Rust SDK: 53 ms before its fix, 676 µs after.
//
// L2, steady state: 10,000 rooms; 100,000 random updates (a new message in a
// random room, a rename, a read marker, in equal thirds; or without renames)
// through filter + sort + page, each followed by a poll of the view. Beside
// it, the obvious twin: after each update, recompute filter + sort + page
// from the same cached items and diff the page against the previous one.
// The baseline runs the first 1,000 updates of the same stream (running all
// 100,000 would take minutes); the incremental view runs both lengths, so
// the ratio is taken on the same input.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "live/diff.hpp"
#include "live/filter.hpp"
#include "live/head.hpp"
#include "live/room_list/filters.hpp"
#include "live/room_list/item.hpp"
#include "live/room_list/service.hpp"
#include "live/room_list/sorters.hpp"
#include "live/room_list/view.hpp"
#include "live/sort.hpp"
#include "live/view.hpp"
#include "support/alloc_counter.hpp"

namespace herald::live {
namespace {

using herald::test::allocation_count;

constexpr std::size_t kPage = 20;

// A deterministic population: names repeat (name ties), 5% of rooms are left,
// `unsent_per_mille` have an unsent local event, a third are DMs.
std::vector<RoomInfo> make_rooms(std::uint32_t n, std::uint32_t unsent_per_mille,
                                 std::mt19937_64& rng) {
  std::vector<RoomInfo> rooms(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    RoomInfo& r = rooms[i];
    r.id = RoomId{i + 1};
    r.display_name = "Room number " + std::to_string(rng() % (n / 2 + 1));
    r.membership = rng() % 20 == 0 ? Membership::left : Membership::joined;
    r.latest_event_is_local = rng() % 1000 < unsent_per_mille;
    r.is_direct = rng() % 3 == 0;
    r.recency_stamp = rng() % 1000;
  }
  return rooms;
}

// ---------------------------------------------------------------- L1

// The L1 state: 1,000 rooms, each having received 1,000 events.
void build_l1(RoomListService& service) {
  std::mt19937_64 rng(1);
  std::vector<RoomInfo> rooms = make_rooms(1000, 100, rng);  // 10% unsent
  for (const RoomInfo& r : rooms) (void)service.add_room(r);
  // 1,000 events per room, interleaved across rooms as they would arrive.
  std::uint64_t clock = 1000;
  for (int e = 0; e < 1000; ++e) {
    for (RoomInfo& r : rooms) {
      ++clock;
      r.recency_stamp = clock;
      r.latest_event_ms = 1'700'000'000'000 + clock;
      r.unread_count += 1;
      r.mention_count += clock % 50 == 0 ? 1 : 0;
      (void)service.update_room(r);
    }
  }
}

void L1_CreateRoomListView(benchmark::State& state) {
  RoomListService service;
  build_l1(service);
  const RoomSorter sorter = default_room_sorter();
  const RoomFilter filter = filter_non_left();
  DiffBatch<RoomListItem> out;
  std::uint64_t allocs = 0;
  std::uint64_t runs = 0;
  for (auto _ : state) {
    const std::uint64_t a0 = allocation_count();
    std::optional<RoomListView> view;
    view.emplace(service, sorter, filter, kPage);
    view->poll(out);
    allocs += allocation_count() - a0;
    ++runs;
    if (out.size() != 1 || out[0].op != DiffOp::reset || out[0].values.size() != kPage) {
      state.SkipWithError("first batch is not a Reset of 20");
      break;
    }
    benchmark::DoNotOptimize(out.data());
    state.PauseTiming();
    view.reset();
    out.clear();
    state.ResumeTiming();
  }
  state.counters["allocs_per_create"] = static_cast<double>(allocs) / static_cast<double>(runs);
}
BENCHMARK(L1_CreateRoomListView)->Unit(benchmark::kMicrosecond);

// The rejected alternative, kept so the measurement can be repeated: the
// same pipeline with the lexicographic sorter built from nested
// std::function sorters (one indirect call per key per comparison), as the
// first version of sorters.hpp did.
using FnSorter = std::function<std::weak_ordering(const RoomListItem&, const RoomListItem&)>;

void L1_CreateView_NestedFunctionSorters(benchmark::State& state) {
  RoomListService service;
  build_l1(service);
  std::vector<FnSorter> keys;
  for (RoomSortKey k : {RoomSortKey::unsent_first, RoomSortKey::recency, RoomSortKey::name}) {
    keys.emplace_back(
        [k](const RoomListItem& a, const RoomListItem& b) { return RoomSorter::compare(k, a, b); });
  }
  const FnSorter lexicographic = [keys](const RoomListItem& a, const RoomListItem& b) {
    for (const FnSorter& key : keys) {
      if (const std::weak_ordering c = key(a, b); c != 0) return c;
    }
    return std::weak_ordering::equivalent;
  };
  const RoomFilter filter = filter_non_left();
  for (auto _ : state) {
    std::optional<
        Observed<Chain<Chain<Filter<RoomListItem, RoomFilter>, SortBy<RoomListItem, FnSorter>>,
                       Head<RoomListItem>>>>
        view;
    view.emplace(service.entries().subscribe(), Filter<RoomListItem, RoomFilter>(filter) |
                                                    SortBy<RoomListItem, FnSorter>(lexicographic) |
                                                    Head<RoomListItem>(kPage));
    if (view->values.size() != kPage) {
      state.SkipWithError("first page is not 20 rooms");
      break;
    }
    benchmark::DoNotOptimize(view->values.data());
    state.PauseTiming();
    view.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(L1_CreateView_NestedFunctionSorters)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------- L2

enum class UpdateKind : std::uint8_t { message, rename, read_marker };
struct Update {
  std::uint32_t room;
  UpdateKind kind;
};

struct L2World {
  std::vector<RoomInfo> rooms;
  std::vector<Update> updates;
  std::vector<std::string> new_names;  // one per rename, swapped in (no allocation)
  std::uint64_t clock = 1'000'000;

  L2World(bool with_renames, std::size_t n_updates) {
    std::mt19937_64 rng(2);
    // Unsent events are rare (0.1%: ~10 rooms): otherwise the unsent rooms
    // alone fill the page of 20 and almost no update would reach it.
    rooms = make_rooms(10'000, 1, rng);
    updates.reserve(n_updates);
    for (std::size_t k = 0; k < n_updates; ++k) {
      const auto room = static_cast<std::uint32_t>(rng() % rooms.size());
      const std::uint64_t roll = rng() % (with_renames ? 3 : 2);
      UpdateKind kind = UpdateKind::read_marker;
      if (roll == 0) kind = UpdateKind::message;
      if (roll == 1 && with_renames) kind = UpdateKind::rename;
      updates.push_back({room, kind});
      if (kind == UpdateKind::rename) {
        new_names.push_back("Renamed room, number " + std::to_string(rng() % 5000));
      }
    }
  }

  // Changes the shared room state for update k; returns the room touched.
  RoomInfo& apply(const Update& u, std::size_t& rename_at) {
    RoomInfo& r = rooms[u.room];
    switch (u.kind) {
      case UpdateKind::message:
        r.recency_stamp = ++clock;
        r.latest_event_ms = 1'700'000'000'000 + clock;
        ++r.unread_count;
        break;
      case UpdateKind::rename:
        std::swap(r.display_name, new_names[rename_at++]);
        break;
      case UpdateKind::read_marker:
        r.unread_count = 0;
        r.mention_count = 0;
        break;
    }
    return r;
  }
};

// args: {number of updates, renames included (0/1)}
void L2_Incremental(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const bool renames = state.range(1) != 0;
  std::uint64_t allocs = 0;
  std::uint64_t diffs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto world = std::make_unique<L2World>(renames, n);
    auto service = std::make_unique<RoomListService>();
    for (const RoomInfo& r : world->rooms) (void)service->add_room(r);
    auto view =
        std::make_unique<RoomListView>(*service, default_room_sorter(), filter_non_left(), kPage);
    DiffBatch<RoomListItem> out;
    view->poll(out);
    std::size_t rename_at = 0;
    state.ResumeTiming();
    const std::uint64_t a0 = allocation_count();
    for (const Update& u : world->updates) {
      (void)service->update_room(world->apply(u, rename_at));
      view->poll(out);
      diffs += out.size();
    }
    allocs += allocation_count() - a0;
    state.PauseTiming();
    view.reset();
    service.reset();
    world.reset();
    state.ResumeTiming();
  }
  const double total = static_cast<double>(n) * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(total));
  state.counters["allocs_per_update"] = static_cast<double>(allocs) / total;
  state.counters["diffs_per_update"] = static_cast<double>(diffs) / total;
  state.counters["ns_per_update"] =
      benchmark::Counter(total * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(L2_Incremental)
    ->Args({100'000, 1})
    ->Args({100'000, 0})
    ->Args({1'000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

// The obvious twin: same cached items, same comparator (ties by position, as
// the view), recomputed from scratch after every update, page diffed
// against the previous page (Set per changed slot, then Append or Truncate).
// args: {number of updates, renames, partial (1: std::partial_sort of the
// first page only; 0: full sort, what a recomputed view holds)}
void L2_RecomputeBaseline(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const bool renames = state.range(1) != 0;
  const bool partial = state.range(2) != 0;
  const RoomSorter sorter = default_room_sorter();
  const RoomFilter filter = filter_non_left();
  std::uint64_t allocs = 0;
  std::uint64_t diffs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto world = std::make_unique<L2World>(renames, n);
    std::vector<RoomListItem> items;
    items.reserve(world->rooms.size());
    for (const RoomInfo& r : world->rooms) items.emplace_back(r);
    std::vector<std::uint32_t> order;
    order.reserve(items.size());
    std::vector<RoomListItem> page;
    std::vector<RoomListItem> next;
    page.reserve(kPage);
    next.reserve(kPage);
    DiffBatch<RoomListItem> out;
    out.reserve(kPage + 2);
    std::size_t rename_at = 0;
    const auto less = [&](std::uint32_t a, std::uint32_t b) {
      const std::weak_ordering c = sorter(items[a], items[b]);
      return c != 0 ? c < 0 : a < b;
    };
    state.ResumeTiming();
    const std::uint64_t a0 = allocation_count();
    for (const Update& u : world->updates) {
      items[u.room].refresh(world->apply(u, rename_at));
      order.clear();
      for (std::uint32_t i = 0; i < items.size(); ++i) {
        if (filter(items[i])) order.push_back(i);
      }
      const std::size_t m = std::min(kPage, order.size());
      if (partial) {
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m),
                          order.end(), less);
      } else {
        std::sort(order.begin(), order.end(), less);
      }
      next.clear();
      for (std::size_t k = 0; k < m; ++k) next.push_back(items[order[k]]);
      out.clear();
      const std::size_t common = std::min(page.size(), next.size());
      for (std::size_t k = 0; k < common; ++k) {
        if (!(page[k] == next[k])) out.push_back(VectorDiff<RoomListItem>::set(k, next[k]));
      }
      if (next.size() > common) {
        out.push_back(VectorDiff<RoomListItem>::append(
            {next.begin() + static_cast<std::ptrdiff_t>(common), next.end()}));
      } else if (page.size() > common) {
        out.push_back(VectorDiff<RoomListItem>::truncate(common));
      }
      diffs += out.size();
      page.swap(next);
    }
    allocs += allocation_count() - a0;
    benchmark::DoNotOptimize(page.data());
  }
  const double total = static_cast<double>(n) * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(total));
  state.counters["allocs_per_update"] = static_cast<double>(allocs) / total;
  state.counters["diffs_per_update"] = static_cast<double>(diffs) / total;
  state.counters["ns_per_update"] =
      benchmark::Counter(total * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(L2_RecomputeBaseline)
    ->Args({1'000, 1, 0})
    ->Args({1'000, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace herald::live

BENCHMARK_MAIN();
