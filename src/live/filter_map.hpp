// FilterMap: for each input item, `f(item)` returns std::optional<U>; the
// output holds the present results, in input order.
//
// Same diff table as Filter (docs/live.md), with each emitted value being
// f's result. `f` must be a pure function of the item: it is called once per
// value that arrives (initial, inserted, appended or set) and its result is
// not recomputed later.
#pragma once

#include <utility>

#include "live/detail/filter_core.hpp"

namespace herald::live {

template <class T, class U, class F>
class FilterMap : public detail::FilterCore<T, U, F> {
 public:
  explicit FilterMap(F f) : detail::FilterCore<T, U, F>(std::move(f)) {}
};

template <class T, class U, class F>
[[nodiscard]] FilterMap<T, U, F> filter_map(F f) {
  return FilterMap<T, U, F>(std::move(f));
}

}  // namespace herald::live
