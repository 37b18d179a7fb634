// Filter: the input items for which a predicate holds, in input order.
//
// The predicate must be a pure function of the item (it is evaluated once
// when an item arrives or is set, and its answer is remembered). Diff table
// in docs/live.md; in short, each input diff maps to at most one output diff,
// and a Set may become Set, Insert (enters the filter), Remove (leaves it) or
// nothing. Changing the predicate means building a new Filter (a restart with
// Reset), which is what the room list does.
#pragma once

#include <optional>
#include <utility>

#include "live/detail/filter_core.hpp"

namespace herald::live {

namespace detail {
template <class T, class Pred>
struct KeepIf {
  Pred pred;
  bool keep(const T& v) { return pred(v); }
  std::optional<T> operator()(const T& v) { return pred(v) ? std::optional<T>(v) : std::nullopt; }
};
}  // namespace detail

template <class T, class Pred>
class Filter : public detail::FilterCore<T, T, detail::KeepIf<T, Pred>> {
 public:
  explicit Filter(Pred pred)
      : detail::FilterCore<T, T, detail::KeepIf<T, Pred>>(
            detail::KeepIf<T, Pred>{std::move(pred)}) {}
};

template <class T, class Pred>
[[nodiscard]] Filter<T, Pred> filter(Pred pred) {
  return Filter<T, Pred>(std::move(pred));
}

}  // namespace herald::live
