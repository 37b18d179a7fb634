// A room's recent publications: a bounded ring, oldest first, with offsets
// strictly increasing by one from front to back (the broker assigns them so).
// Bounded two ways: at most `capacity` entries, and entries older than the
// room's TTL are dropped by expire().
#pragma once

#include <cstdint>
#include <vector>

#include "gateway/frame.hpp"

namespace herald::gateway {

struct StoredPublication {
  std::uint64_t offset = 0;
  std::int64_t at_ns = 0;  // steady clock, for the TTL
  FramePtr frame;          // the {"pub":...} push, as sent live
};

class PublicationRing {
 public:
  explicit PublicationRing(std::size_t capacity) : slots_(capacity) {}

  [[nodiscard]] std::size_t capacity() const { return slots_.size(); }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  // i = 0 is the oldest entry. Requires i < size().
  [[nodiscard]] const StoredPublication& at(std::size_t i) const {
    return slots_[(head_ + i) % slots_.size()];
  }
  [[nodiscard]] const StoredPublication& front() const { return at(0); }
  [[nodiscard]] const StoredPublication& back() const { return at(size_ - 1); }

  // Appends, dropping the oldest entry when full. A zero-capacity ring keeps
  // nothing.
  void push(StoredPublication p) {
    if (slots_.empty()) return;
    if (size_ == slots_.size()) {
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
  }

  void clear() {
    for (auto& s : slots_) s = StoredPublication{};
    head_ = size_ = 0;
  }

  // Index of the first entry with offset > after (size() if none). Offsets
  // are consecutive, so this is arithmetic, not a search.
  [[nodiscard]] std::size_t first_after(std::uint64_t after) const {
    if (size_ == 0 || after < front().offset) return 0;
    std::uint64_t skip = after - front().offset + 1;
    return skip >= size_ ? size_ : static_cast<std::size_t>(skip);
  }

 private:
  std::vector<StoredPublication> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace herald::gateway
