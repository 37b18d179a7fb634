// Head: the first `limit` input items; the limit can change at any time.
//
// State: a copy of the whole input (an item beyond the limit moves in when
// one inside leaves), and the limit. Output length m = min(limit, n).
// Each input diff maps to at most two output diffs (docs/live.md):
// an insert inside a full window pushes the last item out (PopBack first,
// then the insert), a removal inside pulls the next one in (the removal,
// then PushBack). Raising the limit emits one Append of the items that now
// fit; lowering it emits one Truncate. Neither emits when the visible output
// does not change (e.g. raising the limit past the input's end).
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
class Head {
 public:
  using input_type = T;
  using output_type = T;

  explicit Head(std::size_t limit) : limit_(limit) {}

  [[nodiscard]] std::vector<T> initialize(std::vector<T> values) {
    values_.assign(std::move(values));
    return values_.copy(0, visible());
  }

  void process(const DiffBatch<T>& in, DiffBatch<T>& out) {
    for (const VectorDiff<T>& d : in) one(d, out);
  }

  // Appends to `out` the diffs that move the output to the new limit.
  void set_limit(std::size_t limit, DiffBatch<T>& out) {
    const std::size_t m = visible();
    limit_ = limit;
    const std::size_t m2 = visible();
    if (m2 > m) {
      out.push_back(VectorDiff<T>::append(values_.copy(m, m2)));
    } else if (m2 < m) {
      out.push_back(VectorDiff<T>::truncate(m2));
    }
  }

  [[nodiscard]] std::size_t limit() const { return limit_; }
  [[nodiscard]] std::size_t input_size() const { return values_.size(); }

 private:
  [[nodiscard]] std::size_t visible() const { return std::min(limit_, values_.size()); }
  static std::ptrdiff_t at(std::size_t i) { return static_cast<std::ptrdiff_t>(i); }

  void insert_one(std::size_t i, const T& v, DiffOp kind, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    values_.insert(i, v);
    if (i >= limit_) return;
    if (n >= limit_) out.push_back(VectorDiff<T>::pop_back());  // window was full
    if (kind == DiffOp::push_front) {
      out.push_back(VectorDiff<T>::push_front(v));
    } else if (kind == DiffOp::push_back) {
      out.push_back(VectorDiff<T>::push_back(v));
    } else {
      out.push_back(VectorDiff<T>::insert(i, v));
    }
  }

  void remove_one(std::size_t i, DiffOp kind, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    values_.erase(i);
    if (i >= limit_) return;
    if (kind == DiffOp::pop_front) {
      out.push_back(VectorDiff<T>::pop_front());
    } else if (kind == DiffOp::pop_back) {
      out.push_back(VectorDiff<T>::pop_back());
    } else {
      out.push_back(VectorDiff<T>::remove(i));
    }
    // The first item past the window moves in.
    if (n > limit_) out.push_back(VectorDiff<T>::push_back(values_[limit_ - 1]));
  }

  void one(const VectorDiff<T>& d, DiffBatch<T>& out) {
    if (detail::route_single(
            d, values_.size(), [&](std::size_t at) { insert_one(at, d.value, d.op, out); },
            [&](std::size_t at) { remove_one(at, d.op, out); }))
      return;
    switch (d.op) {
      case DiffOp::append: {
        const std::size_t m = visible();
        values_.append(d.values.begin(), d.values.end());
        const std::size_t m2 = visible();
        if (m2 > m) {
          out.push_back(VectorDiff<T>::append(
              std::vector<T>(d.values.begin(), d.values.begin() + at(m2 - m))));
        }
        break;
      }
      case DiffOp::clear:
        if (visible() > 0) out.push_back(VectorDiff<T>::clear());
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
        if (d.index < limit_) out.push_back(VectorDiff<T>::set(d.index, d.value));
        break;
      case DiffOp::truncate: {
        const std::size_t m = visible();
        values_.truncate(d.index);
        const std::size_t m2 = visible();
        if (m2 < m) out.push_back(VectorDiff<T>::truncate(m2));
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
[[nodiscard]] Head<T> head(std::size_t limit) {
  return Head<T>(limit);
}

}  // namespace herald::live
