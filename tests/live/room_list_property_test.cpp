// The room list against its obvious twin: random room updates (messages,
// renames, read markers, unsent flags, membership, tags, new and removed
// rooms), filter changes and paging; after every step the view's diffs
// applied to a mirror equal filter + stable sort + first page recomputed from
// the service's rooms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "live/room_list/filters.hpp"
#include "live/room_list/service.hpp"
#include "live/room_list/sorters.hpp"
#include "live/room_list/view.hpp"
#include "test_support.hpp"

namespace herald::live {
namespace {

std::vector<RoomListItem> recompute(const RoomListService& service, const RoomFilter& filter,
                                    const RoomSorter& sorter, std::size_t limit) {
  std::vector<RoomListItem> out;
  for (const RoomListItem& item : service.entries().values()) {
    if (filter(item)) out.push_back(item);
  }
  std::stable_sort(out.begin(), out.end(),
                   [&](const RoomListItem& a, const RoomListItem& b) { return sorter(a, b) < 0; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::vector<RoomFilter> filter_menu() {
  return {filter_non_left(),
          filter_all({filter_non_left(), filter_unread()}),
          filter_any({filter_favourite(), filter_mentions()}),
          filter_not(filter_low_priority()),
          filter_category(RoomCategory::direct),
          filter_category(RoomCategory::group),
          filter_invite(),
          filter_joined(),
          filter_normalized_name("room 1"),
          filter_fuzzy_name("r2"),
          filter_none()};
}

TEST(RoomListProperty, MatchesRecomputeAfterEveryStep) {
  for (const std::uint64_t seed : {7ULL, 1234ULL, 99991ULL}) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    RoomListService service(seed == 7 ? 2 : 64);  // seed 7 lags and recovers by Reset
    std::vector<RoomInfo> rooms;
    std::uint32_t next_id = 1;
    std::uint64_t clock = 1;
    auto new_room = [&] {
      RoomInfo r;
      r.id = RoomId{next_id++};
      r.display_name = "Room " + std::to_string(pick(0, 30));         // duplicate names on purpose
      r.recency_stamp = static_cast<std::uint64_t>(pick(0, 3)) * 10;  // equal stamps on purpose
      r.is_direct = pick(0, 1) == 1;
      return r;
    };
    for (int i = 0; i < 60; ++i) {
      rooms.push_back(new_room());
      ASSERT_EQ(service.add_room(rooms.back()), RoomListError::ok);
    }
    const std::vector<RoomFilter> filters = filter_menu();
    std::size_t filter_at = 0;
    // The default sorter, and on one seed another key order.
    const RoomSorter sorter =
        seed == 1234 ? sort_lexicographic({sort_name(), sort_recency()}) : default_room_sorter();
    RoomListView view(service, sorter, filters[filter_at], 5);
    std::vector<RoomListItem> mirror;
    DiffBatch<RoomListItem> out;
    for (int step = 0; step < 3000; ++step) {
      const int roll = pick(0, 99);
      std::string op;
      RoomInfo* r =
          rooms.empty()
              ? nullptr
              : &rooms[static_cast<std::size_t>(pick(0, static_cast<int>(rooms.size()) - 1))];
      if (r == nullptr || roll < 3) {
        rooms.push_back(new_room());
        ASSERT_EQ(service.add_room(rooms.back()), RoomListError::ok);
        op = "add";
      } else if (roll < 5) {
        ASSERT_EQ(service.remove_room(r->id), RoomListError::ok);
        rooms.erase(rooms.begin() + (r - rooms.data()));
        op = "remove";
      } else if (roll < 7) {
        filter_at = static_cast<std::size_t>(pick(0, static_cast<int>(filters.size()) - 1));
        view.set_filter(filters[filter_at]);
        op = "set_filter";
      } else if (roll < 10) {
        view.add_page();
        op = "add_page";
      } else if (roll < 12) {
        view.reset_to_one_page();
        op = "reset_to_one_page";
      } else {
        switch (pick(0, 6)) {
          case 0:
            r->recency_stamp = clock++ * 10;  // a new message
            r->latest_event_ms = 1000 + clock;
            ++r->unread_count;
            if (pick(0, 3) == 0) ++r->mention_count;
            op = "message";
            break;
          case 1:
            r->display_name = "Room " + std::to_string(pick(0, 30));
            op = "rename";
            break;
          case 2:
            r->unread_count = 0;
            r->mention_count = 0;
            op = "read_marker";
            break;
          case 3:
            r->latest_event_is_local = !r->latest_event_is_local;
            op = "unsent";
            break;
          case 4:
            r->membership = static_cast<Membership>(pick(0, 4));
            op = "membership";
            break;
          case 5:
            r->tags = static_cast<std::uint8_t>(pick(0, 3));
            op = "tags";
            break;
          default:
            op = "no_change";
            break;
        }
        ASSERT_EQ(service.update_room(*r), RoomListError::ok);
      }
      if (pick(0, 3) != 0) {  // sometimes several steps pile up before a poll
        view.poll(out);
        const BatchResult res = apply_batch(mirror, out);
        ASSERT_EQ(res.error, DiffError::ok) << "seed " << seed << " step " << step << " " << op;
        ASSERT_EQ(mirror, recompute(service, filters[filter_at], sorter, view.limit()))
            << "seed " << seed << " step " << step << " " << op;
      }
    }
  }
}

}  // namespace
}  // namespace herald::live
