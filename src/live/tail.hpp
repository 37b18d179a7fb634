// Tail: the last `limit` input items; the limit can change at any time.
//
// The window is [n - min(limit, n), n); the work is the window core's
// (detail/window_core.hpp). In short: an insert inside a full window pushes
// the first visible item out (PopFront, then the insert); a removal inside
// pulls the item before the window in (the removal, then PushFront);
// raising the limit emits PushFront for each newly visible item, nearest
// first; lowering it emits PopFront for each hidden one (Clear if none
// stay). Table in docs/live.md.
#pragma once

#include <algorithm>
#include <cstddef>

#include "live/detail/window_core.hpp"

namespace herald::live {

namespace detail {
struct LastItems {
  static Span window(std::size_t n, std::size_t limit) { return {n - std::min(limit, n), n}; }
};
}  // namespace detail

template <class T>
class Tail : public detail::WindowCore<T, detail::LastItems> {
 public:
  explicit Tail(std::size_t limit) : detail::WindowCore<T, detail::LastItems>(limit) {}

  // Appends to `out` the diffs that move the output to the new limit.
  void set_limit(std::size_t limit, DiffBatch<T>& out) { this->set_param(limit, out); }
  [[nodiscard]] std::size_t limit() const { return this->param(); }
};

template <class T>
[[nodiscard]] Tail<T> tail(std::size_t limit) {
  return Tail<T>(limit);
}

}  // namespace herald::live
