// Tail: the last `limit` input items; the limit can change at any time.
//
// State: a copy of the whole input and the limit. With n input items the
// window is [s, n), s = n - min(limit, n). Changes before s are invisible
// except through the window's start: an insert inside a full window pushes
// the first visible item out (PopFront, then the insert); a removal inside
// pulls the item before the window in (the removal, then PushFront).
// Raising the limit emits PushFront for each newly visible item, nearest
// first; lowering it emits PopFront for each hidden one (Clear if none stay).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

#include "live/detail/route_single.hpp"
#include "live/detail/slot_vector.hpp"
#include "live/diff.hpp"

namespace herald::live {

template <class T>
class Tail {
 public:
  using input_type = T;
  using output_type = T;

  explicit Tail(std::size_t limit) : limit_(limit) {}

  [[nodiscard]] std::vector<T> initialize(std::vector<T> values) {
    values_.assign(std::move(values));
    return values_.copy(start(), values_.size());
  }

  void process(const DiffBatch<T>& in, DiffBatch<T>& out) {
    for (const VectorDiff<T>& d : in) one(d, out);
  }

  void set_limit(std::size_t limit, DiffBatch<T>& out) {
    const std::size_t s = start();
    const std::size_t m = values_.size() - s;
    limit_ = limit;
    const std::size_t s2 = start();
    if (s2 < s) {
      for (std::size_t k = s; k-- > s2;) out.push_back(VectorDiff<T>::push_front(values_[k]));
    } else if (s2 > s) {
      drop_front(s2 - s, m, out);
    }
  }

  [[nodiscard]] std::size_t limit() const { return limit_; }

 private:
  [[nodiscard]] std::size_t start() const {
    return values_.size() - std::min(limit_, values_.size());
  }
  static std::ptrdiff_t at(std::size_t i) { return static_cast<std::ptrdiff_t>(i); }

  // Hides the first `k` of `m` visible items.
  static void drop_front(std::size_t k, std::size_t m, DiffBatch<T>& out) {
    if (k == 0) return;
    if (k >= m) {
      out.push_back(VectorDiff<T>::clear());
      return;
    }
    for (std::size_t j = 0; j < k; ++j) out.push_back(VectorDiff<T>::pop_front());
  }

  void insert_one(std::size_t i, const T& v, DiffOp kind, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    values_.insert(i, v);
    if (n < limit_) {  // the whole input is visible, before and after
      if (kind == DiffOp::push_front) {
        out.push_back(VectorDiff<T>::push_front(v));
      } else if (kind == DiffOp::push_back) {
        out.push_back(VectorDiff<T>::push_back(v));
      } else {
        out.push_back(VectorDiff<T>::insert(i, v));
      }
      return;
    }
    const std::size_t s = n - limit_;
    if (i <= s) return;  // lands before the window; the last `limit` are unchanged
    out.push_back(VectorDiff<T>::pop_front());
    if (kind == DiffOp::push_back) {
      out.push_back(VectorDiff<T>::push_back(v));
    } else {
      out.push_back(VectorDiff<T>::insert(i - s - 1, v));
    }
  }

  void remove_one(std::size_t i, DiffOp kind, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    const std::size_t s = start();
    values_.erase(i);
    if (i < s) return;  // before the window: the last `limit` are unchanged
    if (kind == DiffOp::pop_back) {
      out.push_back(VectorDiff<T>::pop_back());
    } else if (i == s && kind == DiffOp::pop_front) {
      out.push_back(VectorDiff<T>::pop_front());
    } else {
      out.push_back(VectorDiff<T>::remove(i - s));
    }
    // The item just before the window moves in.
    if (n > limit_) out.push_back(VectorDiff<T>::push_front(values_[s - 1]));
  }

  void one(const VectorDiff<T>& d, DiffBatch<T>& out) {
    if (detail::route_single(
            d, values_.size(), [&](std::size_t at) { insert_one(at, d.value, d.op, out); },
            [&](std::size_t at) { remove_one(at, d.op, out); }))
      return;
    switch (d.op) {
      case DiffOp::append: {
        const std::size_t m = values_.size() - start();
        values_.append(d.values.begin(), d.values.end());
        const std::size_t enter = std::min(limit_, d.values.size());
        if (enter == 0) break;
        const std::size_t m2 = values_.size() - start();
        drop_front(m + enter - m2, m, out);
        out.push_back(
            VectorDiff<T>::append(std::vector<T>(d.values.end() - at(enter), d.values.end())));
        break;
      }
      case DiffOp::clear:
        if (start() < values_.size()) out.push_back(VectorDiff<T>::clear());
        values_.clear();
        break;
      case DiffOp::push_front:
      case DiffOp::push_back:
      case DiffOp::insert:
      case DiffOp::pop_front:
      case DiffOp::pop_back:
      case DiffOp::remove:
        break;  // routed above
      case DiffOp::set: {
        const std::size_t s = start();
        values_.set(d.index, d.value);
        if (d.index >= s) out.push_back(VectorDiff<T>::set(d.index - s, d.value));
        break;
      }
      case DiffOp::truncate: {
        const std::size_t n = values_.size();
        if (d.index >= n) break;
        const std::size_t s = start();
        const std::size_t m = n - s;
        const std::size_t removed = n - d.index;  // from the end
        values_.truncate(d.index);
        const std::size_t s2 = start();
        if (removed >= m) {  // every visible item goes
          if (m > 0) out.push_back(VectorDiff<T>::clear());
          if (s2 < values_.size()) {
            out.push_back(VectorDiff<T>::append(values_.copy(s2, values_.size())));
          }
          break;
        }
        out.push_back(VectorDiff<T>::truncate(m - removed));
        for (std::size_t k = s; k-- > s2;) out.push_back(VectorDiff<T>::push_front(values_[k]));
        break;
      }
      case DiffOp::reset:
        out.push_back(VectorDiff<T>::reset(initialize(d.values)));
        break;
    }
  }

  detail::SlotVector<T> values_;  // the whole input; items never move (slot_vector.hpp)
  std::size_t limit_;
};

template <class T>
[[nodiscard]] Tail<T> tail(std::size_t limit) {
  return Tail<T>(limit);
}

}  // namespace herald::live
