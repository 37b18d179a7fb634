// SortBy: the input items in the order of a comparator.
//
// Comparator contract: `cmp(a, b)` returns std::weak_ordering and is a total
// preorder on values (transitive, consistent); equal items are ordered by
// their input index, so the output is a strict total order and is exactly
// what a stable sort of the input would give. The comparator is called only
// on values this view holds or has just received, never allocates here, and
// must not lock (the room list gives it small cached records).
//
// State:
//   values_[i]  a copy of input item i (input order)
//   order_[k]   the input index at output position k (sorted)
// Both change by O(n) memmoves of plain indices at worst; finding a position
// is a binary search, O(log n) comparator calls. Indices are 32-bit (half
// the bytes to move and to cache of size_t), so an input holds fewer than
// 2^32 items (asserted).
//
// Set, and the infinite-loop lesson. eyeball-im-util's SortBy once located
// the item being set by comparing against the value it held; when T was a
// shallow handle (an Arc whose target had already changed), the held value
// no longer sat where the comparator said, and the search never settled.
// Here:
//   1. the old position is searched with the held copy, then verified
//      (order_[p] == i); if the check fails (a shallow T changed behind our
//      back), a linear scan finds it. Both are bounded; neither loops.
//   2. the new position is searched with the new value among the *other*
//      items only (the neighbours decide the direction, then a binary search
//      runs on the side that excludes p), so the stale entry is never
//      compared against.
// Value types (the room list's items are values) never take the fallback;
// tests pin both paths.
#pragma once

#include <algorithm>
#include <cassert>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "live/detail/nth.hpp"
#include "live/diff.hpp"

namespace herald::live {

template <class T, class Cmp>
class SortBy {
 public:
  using input_type = T;
  using output_type = T;

  explicit SortBy(Cmp cmp) : cmp_(std::move(cmp)) {}

  [[nodiscard]] std::vector<T> initialize(std::vector<T> values) {
    values_ = std::move(values);
    assert(values_.size() < std::uint64_t{1} << 32);
    order_.resize(values_.size());
    std::iota(order_.begin(), order_.end(), std::uint32_t{0});
    // std::sort is introsort: O(n log n) comparisons worst case, and no
    // randomness, so the cost of building a view is the same on every run.
    std::sort(order_.begin(), order_.end(), Less{this});
    return materialize();
  }

  void process(const DiffBatch<T>& in, DiffBatch<T>& out) {
    for (const VectorDiff<T>& d : in) one(d, out);
  }

  [[nodiscard]] std::size_t size() const { return order_.size(); }
  // Times a held value was not where the comparator placed it (shallow T or
  // an inconsistent comparator); the linear fallback found it.
  [[nodiscard]] std::uint64_t fallback_lookups() const { return fallback_lookups_; }

 private:
  struct Less {
    const SortBy* self;
    bool operator()(std::uint32_t a, std::uint32_t b) const { return self->less(a, b); }
  };

  [[nodiscard]] bool less(std::uint32_t a, std::uint32_t b) const {
    const std::weak_ordering c = cmp_(values_[a], values_[b]);
    if (std::is_neq(c)) return std::is_lt(c);
    return a < b;
  }

  std::vector<T> materialize() const {
    std::vector<T> out;
    out.reserve(order_.size());
    for (std::uint32_t i : order_) out.push_back(values_[i]);
    return out;
  }

  // Output position of input index i, searched with the held value.
  std::size_t locate(std::uint32_t i) {
    auto it = std::lower_bound(order_.begin(), order_.end(), i, Less{this});
    if (it != order_.end() && *it == i) return static_cast<std::size_t>(it - order_.begin());
    ++fallback_lookups_;
    it = std::find(order_.begin(), order_.end(), i);
    assert(it != order_.end());
    return static_cast<std::size_t>(it - order_.begin());
  }

  // Insert at output position `pos` of a list that had `len` items.
  static void emit_insert(DiffBatch<T>& out, std::size_t pos, std::size_t len, const T& v) {
    if (pos == 0) {
      out.push_back(VectorDiff<T>::push_front(v));
    } else if (pos == len) {
      out.push_back(VectorDiff<T>::push_back(v));
    } else {
      out.push_back(VectorDiff<T>::insert(pos, v));
    }
  }
  static void emit_remove(DiffBatch<T>& out, std::size_t pos, std::size_t len) {
    if (pos == 0) {
      out.push_back(VectorDiff<T>::pop_front());
    } else if (pos + 1 == len) {
      out.push_back(VectorDiff<T>::pop_back());
    } else {
      out.push_back(VectorDiff<T>::remove(pos));
    }
  }

  void insert_one(std::size_t i, const T& v, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    assert(n + 1 < std::uint64_t{1} << 32);
    values_.insert(detail::nth(values_.begin(), i), v);
    if (i < n) {
      for (std::uint32_t& e : order_) e += e >= i ? 1 : 0;
    }
    const auto idx = static_cast<std::uint32_t>(i);
    auto it = std::lower_bound(order_.begin(), order_.end(), idx, Less{this});
    const auto pos = static_cast<std::size_t>(it - order_.begin());
    order_.insert(it, idx);
    emit_insert(out, pos, n, v);
  }

  void remove_one(std::size_t i, DiffBatch<T>& out) {
    const std::size_t n = order_.size();
    const std::size_t p = locate(static_cast<std::uint32_t>(i));
    order_.erase(detail::nth(order_.begin(), p));
    values_.erase(detail::nth(values_.begin(), i));
    for (std::uint32_t& e : order_) e -= e > i ? 1 : 0;
    emit_remove(out, p, n);
  }

  void set_one(std::size_t i, const T& v, DiffBatch<T>& out) {
    const auto idx = static_cast<std::uint32_t>(i);
    const std::size_t p = locate(idx);
    values_[i] = v;
    const std::size_t n = order_.size();
    const auto first = order_.begin();
    std::size_t q = p;
    if (p > 0 && less(idx, order_[p - 1])) {
      // Moves towards the front: search [0, p) only.
      q = static_cast<std::size_t>(std::lower_bound(first, detail::nth(first, p), idx, Less{this}) -
                                   first);
      std::rotate(detail::nth(first, q), detail::nth(first, p), detail::nth(first, p + 1));
    } else if (p + 1 < n && less(order_[p + 1], idx)) {
      // Moves towards the back: search (p, n) only; position after removal.
      const auto r = static_cast<std::size_t>(
          std::lower_bound(detail::nth(first, p + 1), order_.end(), idx, Less{this}) - first);
      q = r - 1;
      std::rotate(detail::nth(first, p), detail::nth(first, p + 1), detail::nth(first, r));
    }
    if (q == p) {
      out.push_back(VectorDiff<T>::set(p, v));
      return;
    }
    emit_remove(out, p, n);
    emit_insert(out, q, n - 1, v);
  }

  // Appends k values: they are sorted among themselves, then each one's final
  // position is (old items before it) + (new items before it). Emitting them
  // in ascending final position makes each Insert index valid when applied in
  // order; once one lands at the end, all later ones do, and they go out as a
  // single Append.
  void append(const std::vector<T>& vs, DiffBatch<T>& out) {
    if (vs.empty()) return;
    const std::size_t n = values_.size();
    values_.insert(values_.end(), vs.begin(), vs.end());
    fresh_.resize(vs.size());
    std::iota(fresh_.begin(), fresh_.end(), static_cast<std::uint32_t>(n));
    std::sort(fresh_.begin(), fresh_.end(), Less{this});
    auto lo = order_.begin();
    for (std::size_t j = 0; j < fresh_.size(); ++j) {
      lo = std::lower_bound(lo, order_.end(), fresh_[j], Less{this});
      const auto before = static_cast<std::size_t>(lo - order_.begin());
      if (lo == order_.end()) {
        std::vector<T> tail;
        tail.reserve(fresh_.size() - j);
        for (std::size_t t = j; t < fresh_.size(); ++t) tail.push_back(values_[fresh_[t]]);
        out.push_back(VectorDiff<T>::append(std::move(tail)));
        break;
      }
      emit_insert(out, before + j, order_.size() + j, values_[fresh_[j]]);
    }
    merged_.clear();
    merged_.reserve(order_.size() + fresh_.size());
    std::merge(order_.begin(), order_.end(), fresh_.begin(), fresh_.end(),
               std::back_inserter(merged_), Less{this});
    order_.swap(merged_);
  }

  // Removes input items [len, n): each leaves from wherever it sits in the
  // output, highest output position first so earlier indices stay valid.
  void truncate(std::size_t len, DiffBatch<T>& out) {
    const std::size_t n = values_.size();
    if (len >= n) return;
    if (len == 0) {
      out.push_back(VectorDiff<T>::clear());
    } else {
      std::size_t remaining = n;
      for (std::size_t k = order_.size(); k-- > 0;) {
        if (order_[k] < len) continue;
        emit_remove(out, k, remaining);
        --remaining;
      }
    }
    order_.erase(
        std::remove_if(order_.begin(), order_.end(), [len](std::uint32_t e) { return e >= len; }),
        order_.end());
    values_.resize(len);
  }

  void one(const VectorDiff<T>& d, DiffBatch<T>& out) {
    switch (d.op) {
      case DiffOp::append:
        append(d.values, out);
        break;
      case DiffOp::clear:
        if (!values_.empty()) out.push_back(VectorDiff<T>::clear());
        values_.clear();
        order_.clear();
        break;
      case DiffOp::push_front:
        insert_one(0, d.value, out);
        break;
      case DiffOp::push_back:
        insert_one(values_.size(), d.value, out);
        break;
      case DiffOp::insert:
        insert_one(d.index, d.value, out);
        break;
      case DiffOp::pop_front:
        remove_one(0, out);
        break;
      case DiffOp::pop_back:
        remove_one(values_.size() - 1, out);
        break;
      case DiffOp::remove:
        remove_one(d.index, out);
        break;
      case DiffOp::set:
        set_one(d.index, d.value, out);
        break;
      case DiffOp::truncate:
        truncate(d.index, out);
        break;
      case DiffOp::reset:
        out.push_back(VectorDiff<T>::reset(initialize(d.values)));
        break;
    }
  }

  Cmp cmp_;
  std::vector<T> values_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> fresh_;   // append scratch, reused
  std::vector<std::uint32_t> merged_;  // append scratch, reused
  std::uint64_t fallback_lookups_ = 0;
};

template <class T, class Cmp>
[[nodiscard]] SortBy<T, Cmp> sort_by(Cmp cmp) {
  return SortBy<T, Cmp>(std::move(cmp));
}

// Sorted by T's own ordering.
struct NaturalOrder {
  template <class T>
  std::weak_ordering operator()(const T& a, const T& b) const {
    return std::compare_weak_order_fallback(a, b);
  }
};

template <class T>
[[nodiscard]] SortBy<T, NaturalOrder> sort() {
  return SortBy<T, NaturalOrder>(NaturalOrder{});
}

}  // namespace herald::live
