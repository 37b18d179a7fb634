// VectorDiff: one change to a vector, the unit every live list speaks.
//
// The eleven operations are those of eyeball-im's `VectorDiff` (the Matrix
// Rust SDK's room list is built on them), because UI list components map them
// one to one (SwiftUI's CollectionDifference, Compose's MutableList):
//
//   op          fields used     effect on v (n = v.size())     precondition
//   append      values          v += values                    -
//   clear       -               v = {}                         -
//   push_front  value           insert value at 0              -
//   push_back   value           insert value at n              -
//   pop_front   -               erase v[0]                     n > 0
//   pop_back    -               erase v[n-1]                   n > 0
//   insert      index, value    insert value at index          index <= n
//   set         index, value    v[index] = value               index < n
//   remove      index           erase v[index]                 index < n
//   truncate    index (length)  v.resize(length)               length <= n
//   reset       values          v = values                     -
//
// Diffs travel in batches (DiffBatch): a batch is applied in order and is one
// message to a subscriber, so a transaction of many changes costs one wake-up.
//
// The record is a flat tagged struct rather than a std::variant: every view
// switches on `op` in its hot loop, and a batch of diffs is a contiguous
// vector of equal-sized records whose storage is reused once warm. It asks T
// to be default-constructible (unused `value` fields hold T{}).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "live/detail/nth.hpp"

namespace herald::live {

enum class DiffOp : std::uint8_t {
  append,
  clear,
  push_front,
  push_back,
  pop_front,
  pop_back,
  insert,
  set,
  remove,
  truncate,
  reset,
};

[[nodiscard]] constexpr std::string_view to_string(DiffOp op) {
  switch (op) {
    case DiffOp::append:
      return "append";
    case DiffOp::clear:
      return "clear";
    case DiffOp::push_front:
      return "push_front";
    case DiffOp::push_back:
      return "push_back";
    case DiffOp::pop_front:
      return "pop_front";
    case DiffOp::pop_back:
      return "pop_back";
    case DiffOp::insert:
      return "insert";
    case DiffOp::set:
      return "set";
    case DiffOp::remove:
      return "remove";
    case DiffOp::truncate:
      return "truncate";
    case DiffOp::reset:
      return "reset";
  }
  return "?";
}

template <class T>
struct VectorDiff {
  DiffOp op = DiffOp::clear;
  std::size_t index = 0;  // insert, set, remove: position; truncate: new length
  T value{};              // push_front, push_back, insert, set
  std::vector<T> values;  // append, reset

  [[nodiscard]] static VectorDiff append(std::vector<T> vs) {
    return {DiffOp::append, 0, T{}, std::move(vs)};
  }
  [[nodiscard]] static VectorDiff clear() { return {DiffOp::clear, 0, T{}, {}}; }
  [[nodiscard]] static VectorDiff push_front(T v) {
    return {DiffOp::push_front, 0, std::move(v), {}};
  }
  [[nodiscard]] static VectorDiff push_back(T v) {
    return {DiffOp::push_back, 0, std::move(v), {}};
  }
  [[nodiscard]] static VectorDiff pop_front() { return {DiffOp::pop_front, 0, T{}, {}}; }
  [[nodiscard]] static VectorDiff pop_back() { return {DiffOp::pop_back, 0, T{}, {}}; }
  [[nodiscard]] static VectorDiff insert(std::size_t i, T v) {
    return {DiffOp::insert, i, std::move(v), {}};
  }
  [[nodiscard]] static VectorDiff set(std::size_t i, T v) {
    return {DiffOp::set, i, std::move(v), {}};
  }
  [[nodiscard]] static VectorDiff remove(std::size_t i) { return {DiffOp::remove, i, T{}, {}}; }
  [[nodiscard]] static VectorDiff truncate(std::size_t length) {
    return {DiffOp::truncate, length, T{}, {}};
  }
  [[nodiscard]] static VectorDiff reset(std::vector<T> vs) {
    return {DiffOp::reset, 0, T{}, std::move(vs)};
  }

  // Compares only the fields the operation uses, so two diffs that mean the
  // same change are equal whatever the unused fields hold.
  friend bool operator==(const VectorDiff& a, const VectorDiff& b) {
    if (a.op != b.op) return false;
    switch (a.op) {
      case DiffOp::append:
      case DiffOp::reset:
        return a.values == b.values;
      case DiffOp::clear:
      case DiffOp::pop_front:
      case DiffOp::pop_back:
        return true;
      case DiffOp::push_front:
      case DiffOp::push_back:
        return a.value == b.value;
      case DiffOp::insert:
      case DiffOp::set:
        return a.index == b.index && a.value == b.value;
      case DiffOp::remove:
      case DiffOp::truncate:
        return a.index == b.index;
    }
    return false;
  }
};

template <class T>
using DiffBatch = std::vector<VectorDiff<T>>;

enum class DiffError : std::uint8_t {
  ok,
  index_out_of_range,  // insert past the end, set/remove at or past the end
  empty,               // pop_front/pop_back on an empty vector
  truncate_grows,      // truncate to a length greater than the size
};

[[nodiscard]] constexpr std::string_view message(DiffError e) {
  switch (e) {
    case DiffError::ok:
      return "ok";
    case DiffError::index_out_of_range:
      return "index out of range";
    case DiffError::empty:
      return "pop from an empty vector";
    case DiffError::truncate_grows:
      return "truncate to a length greater than the size";
  }
  return "?";
}

// Applies one diff to a plain vector. On error the vector is unchanged.
template <class T>
[[nodiscard]] DiffError apply_diff(std::vector<T>& v, const VectorDiff<T>& d) {
  const std::size_t n = v.size();
  switch (d.op) {
    case DiffOp::append:
      v.insert(v.end(), d.values.begin(), d.values.end());
      break;
    case DiffOp::clear:
      v.clear();
      break;
    case DiffOp::push_front:
      v.insert(v.begin(), d.value);
      break;
    case DiffOp::push_back:
      v.push_back(d.value);
      break;
    case DiffOp::pop_front:
      if (n == 0) return DiffError::empty;
      v.erase(v.begin());
      break;
    case DiffOp::pop_back:
      if (n == 0) return DiffError::empty;
      v.pop_back();
      break;
    case DiffOp::insert:
      if (d.index > n) return DiffError::index_out_of_range;
      v.insert(detail::nth(v.begin(), d.index), d.value);
      break;
    case DiffOp::set:
      if (d.index >= n) return DiffError::index_out_of_range;
      v[d.index] = d.value;
      break;
    case DiffOp::remove:
      if (d.index >= n) return DiffError::index_out_of_range;
      v.erase(detail::nth(v.begin(), d.index));
      break;
    case DiffOp::truncate:
      if (d.index > n) return DiffError::truncate_grows;
      v.erase(detail::nth(v.begin(), d.index), v.end());
      break;
    case DiffOp::reset:
      v = d.values;
      break;
  }
  return DiffError::ok;
}

// Applies a batch in order; stops at the first error, which it returns along
// with the position of the failing diff (diffs before it stay applied).
struct BatchResult {
  DiffError error = DiffError::ok;
  std::size_t failed_at = 0;
};

template <class T>
[[nodiscard]] BatchResult apply_batch(std::vector<T>& v, const DiffBatch<T>& batch) {
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (const DiffError e = apply_diff(v, batch[i]); e != DiffError::ok) return {e, i};
  }
  return {};
}

}  // namespace herald::live
