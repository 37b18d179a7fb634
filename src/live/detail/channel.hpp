// The bounded queue between an ObservableVector and one subscriber.
//
// A ring of `capacity` batch slots. Slots are never freed while the channel
// lives: a pushed batch is copied into the slot's existing storage and a
// popped batch is swapped out against the reader's, so once every slot and
// the reader's batch have grown to the working size, pushing and popping
// allocate nothing (pinned by tests/live/allocation_test.cpp).
//
// Overflow policy (the eyeball-im "lagged" rule): when a push finds the ring
// full, the backlog is dropped and replaced by a single batch holding one
// Reset of the vector's current values. Applying that Reset and whatever
// follows it yields the current state, so a slow reader catches up in one
// message instead of replaying history, and memory stays bounded.
//
// Not thread-safe: a vector and its subscribers live on one shard.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "live/diff.hpp"

namespace herald::live::detail {

template <class T>
class Channel {
 public:
  explicit Channel(std::size_t capacity) : slots_(capacity < 1 ? 1 : capacity) {}

  // `current` is the vector's state after `batch`, used only on overflow.
  void push(const DiffBatch<T>& batch, const std::vector<T>& current) {
    if (detached) return;
    if (size_ == slots_.size()) {
      head_ = 0;
      size_ = 0;
      ++lag_resets_;
      DiffBatch<T>& slot = slots_[0];
      slot.clear();
      slot.push_back(VectorDiff<T>::reset(current));
      size_ = 1;
      return;
    }
    DiffBatch<T>& slot = slots_[(head_ + size_) % slots_.size()];
    // assign() reuses the slot's capacity (and that of its diffs' vectors
    // where element-wise assignment applies).
    slot.assign(batch.begin(), batch.end());
    ++size_;
  }

  // Swaps the oldest batch into `out` (whose old storage becomes the slot's
  // spare capacity). False when nothing is queued.
  [[nodiscard]] bool pop(DiffBatch<T>& out) {
    if (size_ == 0) return false;
    out.swap(slots_[head_]);
    slots_[head_].clear();
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return true;
  }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::uint64_t lag_resets() const { return lag_resets_; }

  // Set by the subscriber when it goes away; the vector then drops the channel.
  bool detached = false;
  // Set by the vector when it goes away; the subscriber drains what is queued.
  bool closed = false;

 private:
  std::vector<DiffBatch<T>> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::uint64_t lag_resets_ = 0;
};

}  // namespace herald::live::detail
