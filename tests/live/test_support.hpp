// Helpers shared by the live tests: printing diffs in failure messages.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "live/diff.hpp"

namespace herald::live {

template <class T>
void print_value(const T& v, std::ostream* os) {
  if constexpr (requires { *os << v; }) {
    *os << v;
  } else {
    *os << "{..}";
  }
}

// gtest finds this by ADL when an assertion on diffs fails.
template <class T>
void PrintTo(const VectorDiff<T>& d, std::ostream* os) {
  *os << to_string(d.op);
  switch (d.op) {
    case DiffOp::append:
    case DiffOp::reset: {
      *os << " [";
      for (std::size_t i = 0; i < d.values.size(); ++i) {
        if (i > 0) *os << ", ";
        print_value(d.values[i], os);
      }
      *os << "]";
      break;
    }
    case DiffOp::push_front:
    case DiffOp::push_back:
      *os << " ";
      print_value(d.value, os);
      break;
    case DiffOp::insert:
    case DiffOp::set:
      *os << " " << d.index << " ";
      print_value(d.value, os);
      break;
    case DiffOp::remove:
    case DiffOp::truncate:
      *os << " " << d.index;
      break;
    default:
      break;
  }
}

}  // namespace herald::live
