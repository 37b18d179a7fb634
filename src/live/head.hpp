// Head: the first `limit` input items; the limit can change at any time.
//
// The window is [0, min(limit, n)); the work is the window core's
// (detail/window_core.hpp). In short: an insert inside a full window pushes
// the last item out (PopBack, then the insert), a removal inside pulls the
// next one in (the removal, then PushBack); raising the limit emits one
// Append of the items that now fit, lowering it one Truncate; neither emits
// when the visible output does not change. Table in docs/live.md.
#pragma once

#include <algorithm>
#include <cstddef>

#include "live/detail/window_core.hpp"

namespace herald::live {

namespace detail {
struct FirstItems {
  static Span window(std::size_t n, std::size_t limit) { return {0, std::min(limit, n)}; }
};
}  // namespace detail

template <class T>
class Head : public detail::WindowCore<T, detail::FirstItems> {
 public:
  explicit Head(std::size_t limit) : detail::WindowCore<T, detail::FirstItems>(limit) {}

  // Appends to `out` the diffs that move the output to the new limit.
  void set_limit(std::size_t limit, DiffBatch<T>& out) { this->set_param(limit, out); }
  [[nodiscard]] std::size_t limit() const { return this->param(); }
};

template <class T>
[[nodiscard]] Head<T> head(std::size_t limit) {
  return Head<T>(limit);
}

}  // namespace herald::live
