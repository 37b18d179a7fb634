// What a view is, and how views compose.
//
// A view maps a list given as (initial values, diff batches) to another list
// given the same way, by transforming diffs, never by recomputing: the state
// it keeps is what it needs to place one incoming change, and each incoming
// diff costs work proportional to what it changes (see docs/live.md for the
// table of input diff -> output diffs of every view).
//
//   initialize(values) -> output values   (starts or restarts the view)
//   process(in, out)                     (appends to `out` the diffs that
//                                         turn the old output into the new)
//
// Contract of process(): `in` is well formed for the input the view has seen
// (indices in range, as ObservableVector guarantees); the diffs appended to
// `out`, applied in order to the previous output, give exactly the view of
// the new input; a change invisible in the output appends nothing.
//
// `a | b` chains two views; the chain is itself a view. Its intermediate
// batch is a member reused across calls, so a warm chain allocates nothing
// for batches. A parameter of the last view is set on it directly
// (`chain.second().set_limit(n, out)`); one of an inner view goes through
// `update_first`, so that the views after it see its diffs.
#pragma once

#include <concepts>
#include <utility>
#include <vector>

#include "live/diff.hpp"
#include "live/observable_vector.hpp"

namespace herald::live {

template <class V>
concept View = requires(V v, std::vector<typename V::input_type> in,
                        const DiffBatch<typename V::input_type>& batch,
                        DiffBatch<typename V::output_type>& out) {
  { v.initialize(std::move(in)) } -> std::same_as<std::vector<typename V::output_type>>;
  v.process(batch, out);
};

template <View A, View B>
requires std::same_as<typename A::output_type, typename B::input_type>
class Chain {
 public:
  using input_type = typename A::input_type;
  using output_type = typename B::output_type;

  Chain(A first, B second) : first_(std::move(first)), second_(std::move(second)) {}

  [[nodiscard]] std::vector<output_type> initialize(std::vector<input_type> values) {
    mid_.clear();
    return second_.initialize(first_.initialize(std::move(values)));
  }

  void process(const DiffBatch<input_type>& in, DiffBatch<output_type>& out) {
    mid_.clear();
    first_.process(in, mid_);
    if (!mid_.empty()) second_.process(mid_, out);
  }

  // Changes a parameter of the first view (a limit, a count): `change(first,
  // batch)` appends the first view's output diffs to `batch`, and they run
  // through the second view into `out`. Calling a first view's setter
  // directly would bypass the second view and desynchronize it.
  template <class F>
  void update_first(F&& change, DiffBatch<output_type>& out) {
    mid_.clear();
    std::forward<F>(change)(first_, mid_);
    if (!mid_.empty()) second_.process(mid_, out);
  }

  [[nodiscard]] A& first() { return first_; }
  [[nodiscard]] B& second() { return second_; }
  [[nodiscard]] const A& first() const { return first_; }
  [[nodiscard]] const B& second() const { return second_; }

 private:
  A first_;
  B second_;
  DiffBatch<typename A::output_type> mid_;
};

template <View A, View B>
requires std::same_as<typename A::output_type, typename B::input_type>
[[nodiscard]] Chain<A, B> operator|(A a, B b) {
  return Chain<A, B>(std::move(a), std::move(b));
}

// A view fed by a subscriber: what a consumer of a live list holds.
// `values` is the view's initial output; poll() runs every queued batch
// through the view and appends the result.
template <View V>
class Observed {
 public:
  using T = typename V::input_type;
  using U = typename V::output_type;

  Observed(Subscription<T> subscription, V view)
      : view_(std::move(view)), subscriber_(std::move(subscription.subscriber)) {
    values = view_.initialize(std::move(subscription.values));
  }

  // Appends to `out` the view's diffs for everything the source published
  // since the last poll. Returns the number of input batches consumed.
  std::size_t poll(DiffBatch<U>& out) {
    std::size_t n = 0;
    while (subscriber_.next(in_)) {
      view_.process(in_, out);
      ++n;
    }
    return n;
  }

  [[nodiscard]] V& view() { return view_; }
  [[nodiscard]] Subscriber<T>& subscriber() { return subscriber_; }

  std::vector<U> values;

 private:
  V view_;
  Subscriber<T> subscriber_;
  DiffBatch<T> in_;
};

}  // namespace herald::live
