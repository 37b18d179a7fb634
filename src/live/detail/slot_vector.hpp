// SlotVector: a sequence whose items never move once stored.
//
// Items live in slots (a plain vector, grown only when no freed slot is
// left); the sequence is a vector of 4-byte slot numbers. Inserting or
// erasing in the middle therefore moves 4 bytes per later item (a memmove)
// instead of moving the items themselves: for the room list's ~70-byte
// items, a Set that moves a room to the top of 10,000 costs a 40 KB memmove
// rather than 10,000 element-wise moves of non-trivial records.
//
// Freed slots are reset to T{} (releasing what they own) and reused; in a
// steady state of as many inserts as erases nothing is allocated. Slot
// storage never shrinks below the largest size reached since the last
// assign() or clear(): memory is bounded by the peak input, not the current.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "live/detail/nth.hpp"

namespace herald::live::detail {

template <class T>
class SlotVector {
 public:
  [[nodiscard]] std::size_t size() const { return order_.size(); }
  [[nodiscard]] bool empty() const { return order_.empty(); }
  [[nodiscard]] const T& operator[](std::size_t i) const { return slots_[order_[i]]; }

  void insert(std::size_t i, const T& v) {
    assert(i <= order_.size());
    order_.insert(nth(order_.begin(), i), take(v));
  }
  void push_back(const T& v) { order_.push_back(take(v)); }
  void set(std::size_t i, const T& v) { slots_[order_[i]] = v; }
  void erase(std::size_t i) {
    assert(i < order_.size());
    release(order_[i]);
    order_.erase(nth(order_.begin(), i));
  }
  // Keeps the first n items.
  void truncate(std::size_t n) {
    for (std::size_t k = n; k < order_.size(); ++k) release(order_[k]);
    if (n < order_.size()) order_.resize(n);
  }
  void clear() {
    slots_.clear();
    free_.clear();
    order_.clear();
  }
  // Replaces the contents with `values` (moved in), slots in order.
  void assign(std::vector<T>&& values) {
    clear();
    slots_ = std::move(values);
    order_.resize(slots_.size());
    for (std::size_t k = 0; k < order_.size(); ++k) order_[k] = static_cast<std::uint32_t>(k);
  }
  template <class It>
  void append(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }
  // Copies items [from, to) into a new vector.
  [[nodiscard]] std::vector<T> copy(std::size_t from, std::size_t to) const {
    std::vector<T> out;
    out.reserve(to - from);
    for (std::size_t k = from; k < to; ++k) out.push_back((*this)[k]);
    return out;
  }

 private:
  std::uint32_t take(const T& v) {
    if (!free_.empty()) {
      const std::uint32_t s = free_.back();
      free_.pop_back();
      slots_[s] = v;
      return s;
    }
    assert(slots_.size() < std::uint64_t{1} << 32);  // slot numbers are 32-bit
    slots_.push_back(v);
    return static_cast<std::uint32_t>(slots_.size() - 1);
  }
  void release(std::uint32_t s) {
    slots_[s] = T{};
    free_.push_back(s);
  }

  std::vector<T> slots_;
  std::vector<std::uint32_t> free_;   // slots not in order_
  std::vector<std::uint32_t> order_;  // the sequence, as slot numbers
};

}  // namespace herald::live::detail
