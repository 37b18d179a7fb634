// RoomListView: one client's room list, filter -> sort -> head(page), fed by
// a RoomListService and read as diff batches.
//
// Lifecycle:
// - Construction (and every set_filter) starts the pipeline from the
//   service's current rooms; the next poll() begins with exactly one Reset
//   holding the first page. This is the Matrix SDK's "switch": a new filter
//   means a new pipeline, never an attempt to patch the old one.
// - poll() runs everything the service published since the last poll through
//   the pipeline and hands out the resulting diffs; once warm, a poll after
//   an update that does not rename a room allocates nothing.
// - Paging: add_page() raises the limit by one page (Append of the rooms that
//   now fit), reset_to_one_page() lowers it back (Truncate). A restart also
//   goes back to one page.
// The sorter is fixed for the view's life; sorters and filters read only
// RoomListItems (see item.hpp for why).
#pragma once

#include <cstddef>
#include <optional>

#include "live/diff.hpp"
#include "live/filter.hpp"
#include "live/head.hpp"
#include "live/observable_vector.hpp"
#include "live/room_list/filters.hpp"
#include "live/room_list/item.hpp"
#include "live/room_list/service.hpp"
#include "live/room_list/sorters.hpp"
#include "live/sort.hpp"
#include "live/view.hpp"

namespace herald::live {

class RoomListView {
 public:
  using Item = RoomListItem;
  using Pipeline = Chain<Chain<Filter<Item, RoomFilter>, SortBy<Item, RoomSorter>>, Head<Item>>;

  // page_size 0 is treated as 1 (a page holds at least one room).
  RoomListView(RoomListService& service, RoomSorter sorter, RoomFilter filter,
               std::size_t page_size);
  RoomListView(const RoomListView&) = delete;
  RoomListView& operator=(const RoomListView&) = delete;

  // Replaces `out` with the diffs since the last poll (reusing its storage).
  void poll(DiffBatch<Item>& out);

  // Restarts the pipeline with `filter` (next poll: one Reset, one page).
  void set_filter(RoomFilter filter);
  void add_page();
  void reset_to_one_page();

  [[nodiscard]] std::size_t limit() const { return limit_; }
  [[nodiscard]] std::size_t page_size() const { return page_size_; }
  // Lag resets of the current subscription (a slow view caught up by Reset).
  [[nodiscard]] std::uint64_t lag_resets() const { return subscriber_.lag_resets(); }

 private:
  void restart();
  void drain();

  RoomListService* service_;
  RoomSorter sorter_;
  RoomFilter filter_;
  std::size_t page_size_;
  std::size_t limit_;
  Subscriber<Item> subscriber_;
  std::optional<Pipeline> pipeline_;
  DiffBatch<Item> in_;
  DiffBatch<Item> pending_;
};

}  // namespace herald::live
