// Skip: the input items after the first `count`; the count can change.
//
// State: a copy of the whole input and the count. The window is [c, n),
// c = min(count, n). A change inside the skipped prefix shifts the window by
// one: an insert there makes the prefix's last item visible (PushFront), a
// removal there hides the first visible item (PopFront). Raising the count
// emits PopFront per hidden item (Clear if none stay); lowering it emits
// PushFront per newly visible item, nearest first.
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
class Skip {
 public:
  using input_type = T;
  using output_type = T;

  explicit Skip(std::size_t count) : count_(count) {}

  [[nodiscard]] std::vector<T> initialize(std::vector<T> values) {
    values_.assign(std::move(values));
    return values_.copy(start(), values_.size());
  }

  void process(const DiffBatch<T>& in, DiffBatch<T>& out) {
    for (const VectorDiff<T>& d : in) one(d, out);
  }

  void set_count(std::size_t count, DiffBatch<T>& out) {
    const std::size_t c = start();
    const std::size_t m = values_.size() - c;
    count_ = count;
    const std::size_t c2 = start();
    if (c2 > c) {
      if (c2 - c >= m) {
        out.push_back(VectorDiff<T>::clear());
      } else {
        for (std::size_t j = c; j < c2; ++j) out.push_back(VectorDiff<T>::pop_front());
      }
    } else {
      for (std::size_t k = c; k-- > c2;) out.push_back(VectorDiff<T>::push_front(values_[k]));
    }
  }

  [[nodiscard]] std::size_t count() const { return count_; }

 private:
  [[nodiscard]] std::size_t start() const { return std::min(count_, values_.size()); }
  static std::ptrdiff_t at(std::size_t i) { return static_cast<std::ptrdiff_t>(i); }

  void insert_one(std::size_t i, const T& v, DiffOp kind, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    values_.insert(i, v);
    if (i < count_) {
      // Lands in the prefix: the prefix's old last item becomes visible.
      if (n >= count_) out.push_back(VectorDiff<T>::push_front(values_[count_]));
      return;
    }
    if (kind == DiffOp::push_front) {
      out.push_back(VectorDiff<T>::push_front(v));
    } else if (kind == DiffOp::push_back) {
      out.push_back(VectorDiff<T>::push_back(v));
    } else {
      out.push_back(VectorDiff<T>::insert(i - count_, v));
    }
  }

  void remove_one(std::size_t i, DiffOp kind, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    values_.erase(i);
    if (n <= count_) return;  // nothing was visible
    if (i < count_ || kind == DiffOp::pop_front) {
      out.push_back(VectorDiff<T>::pop_front());
    } else if (kind == DiffOp::pop_back) {
      out.push_back(VectorDiff<T>::pop_back());
    } else {
      out.push_back(VectorDiff<T>::remove(i - count_));
    }
  }

  void one(const VectorDiff<T>& d, DiffBatch<T>& out) {
    if (detail::route_single(
            d, values_.size(), [&](std::size_t at) { insert_one(at, d.value, d.op, out); },
            [&](std::size_t at) { remove_one(at, d.op, out); }))
      return;
    switch (d.op) {
      case DiffOp::append: {
        const std::size_t n = values_.size();
        values_.append(d.values.begin(), d.values.end());
        const std::size_t hidden = n >= count_ ? 0 : std::min(count_ - n, d.values.size());
        if (hidden < d.values.size()) {
          out.push_back(
              VectorDiff<T>::append(std::vector<T>(d.values.begin() + at(hidden), d.values.end())));
        }
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
      case DiffOp::set:
        values_.set(d.index, d.value);
        if (d.index >= count_) out.push_back(VectorDiff<T>::set(d.index - count_, d.value));
        break;
      case DiffOp::truncate: {
        const std::size_t m = values_.size() - start();
        values_.truncate(d.index);
        const std::size_t m2 = values_.size() - start();
        if (m2 < m) out.push_back(VectorDiff<T>::truncate(m2));
        break;
      }
      case DiffOp::reset:
        out.push_back(VectorDiff<T>::reset(initialize(d.values)));
        break;
    }
  }

  detail::SlotVector<T> values_;  // the whole input; items never move (slot_vector.hpp)
  std::size_t count_;
};

template <class T>
[[nodiscard]] Skip<T> skip(std::size_t count) {
  return Skip<T>(count);
}

}  // namespace herald::live
