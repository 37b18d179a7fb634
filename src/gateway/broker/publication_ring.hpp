// A room's recent publications: a bounded ring, oldest first, with offsets
// strictly increasing by one from front to back (the broker assigns them so).
// Bounded two ways: at most `capacity` entries, and entries older than the
// room's TTL are dropped by expire().
//
// The storage grows with use, not with the capacity: a ring holds no
// allocation until its first push, doubles up to the capacity as entries
// arrive, and gives its storage back when expire() or clear() empties it.
// A room costs history_size x 32 bytes only while it really keeps that
// many publications; allocating the capacity up front made every room
// anyone named (a subscribe, a history) cost it, whether or not anything
// was ever published (40,000 fresh rooms: +142 MB of RSS at the default
// 100; tens of GB in one frame of history commands at the allowed maximum).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gateway/fanout/message.hpp"

namespace herald::gateway::broker {

struct StoredPublication {
  std::uint64_t offset = 0;
  std::int64_t at_ns = 0;    // steady clock, for the TTL
  fanout::MessagePtr frame;  // the {"pub":...} push, as sent live
};

class PublicationRing {
 public:
  explicit PublicationRing(std::size_t capacity) : capacity_(capacity) {}

  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  // Slots allocated now (<= capacity()): what the ring costs.
  [[nodiscard]] std::size_t allocated() const { return slots_.capacity(); }
  // i = 0 is the oldest entry. Requires i < size().
  [[nodiscard]] const StoredPublication& at(std::size_t i) const {
    return slots_[(head_ + i) % slots_.size()];
  }
  [[nodiscard]] const StoredPublication& front() const { return at(0); }
  [[nodiscard]] const StoredPublication& back() const { return at(size_ - 1); }

  // Appends, dropping the oldest entry when full. A zero-capacity ring keeps
  // nothing.
  void push(StoredPublication p) {
    if (capacity_ == 0) return;
    if (size_ == slots_.size() && slots_.size() < capacity_) {
      // Every slot is in use but the capacity allows more: straighten the
      // ring so that it starts at slot 0, then grow at the end (the vector
      // doubles, amortized O(1) per push). Safety (the cast): head_ <=
      // slots_.size(), which a vector keeps below PTRDIFF_MAX.
      std::rotate(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_),
                  slots_.end());
      head_ = 0;
      if (slots_.capacity() == slots_.size()) {
        slots_.reserve(std::min(capacity_, std::max<std::size_t>(4, 2 * slots_.size())));
      }
      slots_.push_back(std::move(p));
      ++size_;
      return;
    }
    if (size_ == slots_.size()) {  // full at the capacity: overwrite the oldest
      slots_[head_] = std::move(p);
      head_ = (head_ + 1) % slots_.size();
      return;
    }
    slots_[(head_ + size_) % slots_.size()] = std::move(p);
    ++size_;
  }

  // Drops entries published at or before cutoff_ns.
  void expire(std::int64_t cutoff_ns) {
    while (size_ > 0 && slots_[head_].at_ns <= cutoff_ns) {
      slots_[head_] = StoredPublication{};
      head_ = (head_ + 1) % slots_.size();
      --size_;
    }
    if (size_ == 0) clear();
  }

  // Empties the ring and gives its storage back.
  void clear() {
    std::vector<StoredPublication>().swap(slots_);
    head_ = size_ = 0;
  }

  // Index of the first entry with offset > after (size() if none). Offsets
  // are consecutive, so this is arithmetic, not a search.
  [[nodiscard]] std::size_t first_after(std::uint64_t after) const {
    if (size_ == 0 || after < front().offset) return 0;
    std::uint64_t skip = after - front().offset + 1;
    // Safety: skip < size_ here, so it fits in size_t.
    return skip >= size_ ? size_ : static_cast<std::size_t>(skip);
  }

 private:
  std::size_t capacity_;
  std::vector<StoredPublication> slots_;  // slots_.size() grows to at most capacity_
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace herald::gateway::broker
