// Skip: the input items after the first `count`; the count can change.
//
// The window is [min(count, n), n); the work is the window core's
// (detail/window_core.hpp). In short: a change inside the skipped prefix
// shifts the window by one: an insert there makes the prefix's last item
// visible (PushFront), a removal there hides the first visible item
// (PopFront). Raising the count emits PopFront per hidden item (Clear if
// none stay); lowering it emits PushFront per newly visible item, nearest
// first. Table in docs/live.md.
#pragma once

#include <algorithm>
#include <cstddef>

#include "live/detail/window_core.hpp"

namespace herald::live {

namespace detail {
struct AfterFirstItems {
  static Span window(std::size_t n, std::size_t count) { return {std::min(count, n), n}; }
};
}  // namespace detail

template <class T>
class Skip : public detail::WindowCore<T, detail::AfterFirstItems> {
 public:
  explicit Skip(std::size_t count) : detail::WindowCore<T, detail::AfterFirstItems>(count) {}

  // Appends to `out` the diffs that move the output to the new count.
  void set_count(std::size_t count, DiffBatch<T>& out) { this->set_param(count, out); }
  [[nodiscard]] std::size_t count() const { return this->param(); }
};

template <class T>
[[nodiscard]] Skip<T> skip(std::size_t count) {
  return Skip<T>(count);
}

}  // namespace herald::live
