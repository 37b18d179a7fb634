#include "live/room_list/view.hpp"

#include <utility>

namespace herald::live {

RoomListView::RoomListView(RoomListService& service, RoomSorter sorter, RoomFilter filter,
                           std::size_t page_size)
    : service_(&service),
      sorter_(sorter),
      filter_(std::move(filter)),
      page_size_(page_size == 0 ? 1 : page_size),
      limit_(page_size_) {
  restart();
}

void RoomListView::restart() {
  // A fresh subscription: its values already contain everything the old one
  // had queued, so the old queue is dropped with it, never replayed.
  Subscription<Item> sub = service_->entries().subscribe();
  subscriber_ = std::move(sub.subscriber);
  limit_ = page_size_;
  pipeline_.emplace(Filter<Item, RoomFilter>(filter_) | SortBy<Item, RoomSorter>(sorter_) |
                    Head<Item>(limit_));
  pending_.clear();
  pending_.push_back(VectorDiff<Item>::reset(pipeline_->initialize(std::move(sub.values))));
}

void RoomListView::drain() {
  while (subscriber_.next(in_)) pipeline_->process(in_, pending_);
}

void RoomListView::poll(DiffBatch<Item>& out) {
  drain();
  out.clear();
  out.swap(pending_);
}

void RoomListView::set_filter(RoomFilter filter) {
  filter_ = std::move(filter);
  restart();
}

void RoomListView::add_page() {
  drain();  // the limit change applies after everything already published
  limit_ += page_size_;
  pipeline_->second().set_limit(limit_, pending_);
}

void RoomListView::reset_to_one_page() {
  drain();
  limit_ = page_size_;
  pipeline_->second().set_limit(limit_, pending_);
}

}  // namespace herald::live
