// The engine shared by Head, Tail and Skip: a contiguous window of the input.
//
// The three views differ only in where the window lies for an input of n
// items and their parameter p (`Bounds::window(n, p)`):
//
//   head(limit)  [0, min(limit, n))
//   tail(limit)  [n - min(limit, n), n)
//   skip(count)  [min(count, n), n)
//
// Everything else is this one class: it keeps the whole input (an item
// outside the window moves in when one inside leaves) and turns each input
// diff into the output diffs by comparing the window before and after it.
// Because the window is contiguous and the change keeps the input's order,
// the output changes only at its two ends, plus the changed item itself:
//
//   one insert or removal  a removal first, at its place in the old output
//                          (same kind: PopFront, PopBack, Remove); then the
//                          items that leave (PopFront, PopBack), those that
//                          enter in front (PushFront), an insert at its
//                          place in the new window (same kind: PushFront,
//                          PushBack, Insert), those that enter at the back
//                          (PushBack)
//   Append, Truncate and   the items kept in sight are a run of both
//   a new parameter        windows: PopFront per item leaving in front (Clear
//                          when the front passes them all), Truncate for
//                          those leaving at the back, PushFront per item
//                          entering in front (nearest first), one Append
//                          for those entering at the back
//
// docs/live.md has the table; tests/live pins each view's sequences and
// checks every one against a recomputation from the input.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "live/detail/route_single.hpp"
#include "live/detail/slot_vector.hpp"
#include "live/diff.hpp"

namespace herald::live::detail {

// A window [begin, end) of input positions.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  [[nodiscard]] std::size_t size() const { return end - begin; }
  [[nodiscard]] bool contains(std::size_t i) const { return begin <= i && i < end; }
};

template <class T, class Bounds>
class WindowCore {
 public:
  using input_type = T;
  using output_type = T;

  explicit WindowCore(std::size_t param) : param_(param) {}

  [[nodiscard]] std::vector<T> initialize(std::vector<T> values) {
    values_.assign(std::move(values));
    const Span w = window();
    return values_.copy(w.begin, w.end);
  }

  void process(const DiffBatch<T>& in, DiffBatch<T>& out) {
    for (const VectorDiff<T>& d : in) one(d, out);
  }

 protected:
  // Sets the parameter and appends the diffs that move the output there.
  void set_param(std::size_t param, DiffBatch<T>& out) {
    const Span old = window();
    param_ = param;
    slide(old, values_.size(), out);
  }
  [[nodiscard]] std::size_t param() const { return param_; }

 private:
  [[nodiscard]] Span window() const { return Bounds::window(values_.size(), param_); }

  // After an Append, a Truncate or a new parameter: the input's first
  // `common` positions hold the same items as when the output showed `old`.
  void slide(Span old, std::size_t common, DiffBatch<T>& out) {
    const Span now = window();
    Span kept{std::max(old.begin, now.begin), std::min({old.end, now.end, common})};
    if (kept.begin >= kept.end) {  // nothing shown stays in sight
      if (old.size() > 0) {
        // Passed by the front: Clear. Cut at the back: Truncate to nothing.
        out.push_back(kept.begin >= old.end ? VectorDiff<T>::clear() : VectorDiff<T>::truncate(0));
        kept = {now.begin, now.begin};  // the new window arrives as one Append
      } else {
        // An empty output grows from where it was: items before that point
        // arrive in front, the others at the back (tail(0 -> k) is PushFronts,
        // head(0 -> k) one Append).
        const std::size_t at = std::clamp(old.begin, now.begin, now.end);
        kept = {at, at};
      }
    } else {
      for (std::size_t k = old.begin; k < kept.begin; ++k) {
        out.push_back(VectorDiff<T>::pop_front());
      }
      if (kept.end < old.end) out.push_back(VectorDiff<T>::truncate(kept.size()));
    }
    for (std::size_t k = kept.begin; k-- > now.begin;) {
      out.push_back(VectorDiff<T>::push_front(values_[k]));
    }
    if (now.end > kept.end) out.push_back(VectorDiff<T>::append(values_.copy(kept.end, now.end)));
  }

  // After one insert or removal. `moved` is where the items shown before it
  // sit in the input now; after an insert it may hold the new item at
  // `fresh` (which is not one of them). Emits the shown items that left the
  // window, those that entered it in front, `change(offset)` for the new
  // item if it is in sight, then those that entered at the back.
  //
  // Each end of a view's window moves by at most one position per one-item
  // change, so an item entering in front and a new item in sight never come
  // together, and no item entering at the back precedes the new one: its
  // offset in the window is its offset in the output.
  template <class Change>
  void reshape(Span moved, std::optional<std::size_t> fresh, Change change, DiffBatch<T>& out) {
    const Span now = window();
    const auto others = [&](std::size_t from, std::size_t to) -> std::size_t {
      if (to <= from) return 0;
      return to - from - (fresh && *fresh >= from && *fresh < to ? 1 : 0);
    };
    const std::size_t front_out = others(moved.begin, std::min(moved.end, now.begin));
    const std::size_t back_out = others(std::max(moved.begin, now.end), moved.end);
    for (std::size_t k = 0; k < front_out; ++k) out.push_back(VectorDiff<T>::pop_front());
    for (std::size_t k = 0; k < back_out; ++k) out.push_back(VectorDiff<T>::pop_back());
    const std::size_t front_end = std::min(moved.begin, now.end);
    for (std::size_t k = front_end; k-- > now.begin;) {
      if (k != fresh) out.push_back(VectorDiff<T>::push_front(values_[k]));
    }
    if (fresh && now.contains(*fresh)) {
      assert(front_end <= now.begin || *fresh < front_end);
      assert(*fresh <= std::max(moved.end, now.begin));
      change(*fresh - now.begin);
    }
    for (std::size_t k = std::max(moved.end, now.begin); k < now.end; ++k) {
      if (k != fresh) out.push_back(VectorDiff<T>::push_back(values_[k]));
    }
  }

  void insert_one(std::size_t i, const T& v, DiffOp kind, DiffBatch<T>& out) {
    const Span old = window();
    values_.insert(i, v);
    // Shown items at or after i moved up by one.
    const std::size_t begin = old.begin + (old.begin >= i ? 1 : 0);
    const Span moved{begin, old.size() == 0 ? begin : old.end + (old.end > i ? 1 : 0)};
    reshape(
        moved, i,
        [&](std::size_t at) {
          if (kind == DiffOp::push_front) {
            out.push_back(VectorDiff<T>::push_front(v));
          } else if (kind == DiffOp::push_back) {
            out.push_back(VectorDiff<T>::push_back(v));
          } else {
            out.push_back(VectorDiff<T>::insert(at, v));
          }
        },
        out);
  }

  void remove_one(std::size_t i, DiffOp kind, DiffBatch<T>& out) {
    const Span old = window();
    values_.erase(i);
    if (old.contains(i)) {  // the removal, at its place in the old output
      if (kind == DiffOp::pop_front) {
        out.push_back(VectorDiff<T>::pop_front());
      } else if (kind == DiffOp::pop_back) {
        out.push_back(VectorDiff<T>::pop_back());
      } else {
        out.push_back(VectorDiff<T>::remove(i - old.begin));
      }
    }
    // Shown items after i moved down by one; the removed one is gone.
    const Span moved{old.begin - (old.begin > i ? 1 : 0), old.end - (old.end > i ? 1 : 0)};
    reshape(
        moved, std::nullopt, [](std::size_t) {}, out);
  }

  void one(const VectorDiff<T>& d, DiffBatch<T>& out) {
    if (route_single(
            d, values_.size(), [&](std::size_t at) { insert_one(at, d.value, d.op, out); },
            [&](std::size_t at) { remove_one(at, d.op, out); }))
      return;
    switch (d.op) {
      case DiffOp::append: {
        const Span old = window();
        const std::size_t n = values_.size();
        values_.append(d.values.begin(), d.values.end());
        slide(old, n, out);
        break;
      }
      case DiffOp::clear:
        if (window().size() > 0) out.push_back(VectorDiff<T>::clear());
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
        const Span w = window();
        values_.set(d.index, d.value);
        if (w.contains(d.index)) out.push_back(VectorDiff<T>::set(d.index - w.begin, d.value));
        break;
      }
      case DiffOp::truncate: {
        if (d.index >= values_.size()) break;
        const Span old = window();
        values_.truncate(d.index);
        slide(old, d.index, out);
        break;
      }
      case DiffOp::reset:
        out.push_back(VectorDiff<T>::reset(initialize(d.values)));
        break;
    }
  }

  SlotVector<T> values_;  // the whole input; items never move (slot_vector.hpp)
  std::size_t param_;
};

}  // namespace herald::live::detail
