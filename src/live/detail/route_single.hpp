// The six diff operations that insert or remove one element, routed to a
// view's insert-at / remove-at. Every view that keeps its input (filter,
// filter_map, head, tail, skip) handles them the same way, through its own
// insert_one / remove_one; they differ only in the other five operations.
#pragma once

#include <cstddef>

#include "live/diff.hpp"

namespace herald::live::detail {

// `size` is the view's input length before `d`. Returns false, touching
// nothing, for Append, Clear, Set, Truncate and Reset.
template <class T, class InsertAt, class RemoveAt>
bool route_single(const VectorDiff<T>& d, std::size_t size, InsertAt&& insert_at,
                  RemoveAt&& remove_at) {
  switch (d.op) {
    case DiffOp::push_front:
      insert_at(std::size_t{0});
      return true;
    case DiffOp::push_back:
      insert_at(size);
      return true;
    case DiffOp::insert:
      insert_at(d.index);
      return true;
    case DiffOp::pop_front:
      remove_at(std::size_t{0});
      return true;
    case DiffOp::pop_back:
      remove_at(size - 1);
      return true;
    case DiffOp::remove:
      remove_at(d.index);
      return true;
    default:
      return false;
  }
}

}  // namespace herald::live::detail
