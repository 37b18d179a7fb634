// The engine shared by Filter and FilterMap.
//
// State: one byte per input item saying whether it is in the output. The
// output position of input item i is the number of kept items before it
// (`rank(i)`), counted on demand: a linear pass over bytes, which the
// compiler vectorizes (10 KB for 10,000 rooms; a whole L2 update, this count
// included, measured about 2.5 µs). A Fenwick tree would make rank O(log n),
// but every insert or remove in the input would then cost an O(n) rebuild,
// and sets dominate the room list's load.
//
// The mapper returns std::optional<U>: a value means "kept, as this".
// It is called exactly once per input value seen (on initialize, on each
// inserted or set value), never on values already placed.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "live/detail/nth.hpp"
#include "live/detail/route_single.hpp"
#include "live/diff.hpp"

namespace herald::live::detail {

template <class T, class U, class Mapper>
class FilterCore {
 public:
  using input_type = T;
  using output_type = U;

  explicit FilterCore(Mapper m) : map_(std::move(m)) {}

  [[nodiscard]] std::vector<U> initialize(std::vector<T> values) {
    kept_.clear();
    kept_count_ = 0;
    if constexpr (requires(const T& v) { map_.keep(v); }) {
      // A plain filter: kept values move through instead of being copied.
      std::vector<U> out;
      kept_.reserve(values.size());
      for (T& v : values) {
        const bool k = map_.keep(v);
        kept_.push_back(k ? 1 : 0);
        if (k) out.push_back(std::move(v));
      }
      kept_count_ = out.size();
      return out;
    } else {
      return keep_all(values);
    }
  }

  void process(const DiffBatch<T>& in, DiffBatch<U>& out) {
    for (const VectorDiff<T>& d : in) one(d, out);
  }

  [[nodiscard]] std::size_t input_size() const { return kept_.size(); }
  [[nodiscard]] std::size_t output_size() const { return kept_count_; }

 private:
  [[nodiscard]] std::size_t rank(std::size_t i) const {
    return static_cast<std::size_t>(std::count(kept_.begin(), nth(kept_.begin(), i), 1));
  }

  // Appends flags for `values` and returns the kept, mapped ones.
  std::vector<U> keep_all(const std::vector<T>& values) {
    std::vector<U> out;
    kept_.reserve(kept_.size() + values.size());
    for (const T& v : values) {
      std::optional<U> m = map_(v);
      kept_.push_back(m ? 1 : 0);
      if (m) out.push_back(std::move(*m));
    }
    kept_count_ += out.size();
    return out;
  }

  void insert_one(std::size_t i, const T& v, DiffOp kind, DiffBatch<U>& out) {
    std::optional<U> m = map_(v);
    const std::size_t j = rank(i);
    kept_.insert(nth(kept_.begin(), i), m ? 1 : 0);
    if (!m) return;
    ++kept_count_;
    if (kind == DiffOp::push_front) {
      out.push_back(VectorDiff<U>::push_front(std::move(*m)));
    } else if (kind == DiffOp::push_back) {
      out.push_back(VectorDiff<U>::push_back(std::move(*m)));
    } else {
      out.push_back(VectorDiff<U>::insert(j, std::move(*m)));
    }
  }

  void remove_one(std::size_t i, DiffOp kind, DiffBatch<U>& out) {
    assert(i < kept_.size());
    const bool was = kept_[i] != 0;
    const std::size_t j = was && kind == DiffOp::remove ? rank(i) : 0;
    kept_.erase(nth(kept_.begin(), i));
    if (!was) return;
    --kept_count_;
    if (kind == DiffOp::pop_front) {
      out.push_back(VectorDiff<U>::pop_front());
    } else if (kind == DiffOp::pop_back) {
      out.push_back(VectorDiff<U>::pop_back());
    } else {
      out.push_back(VectorDiff<U>::remove(j));
    }
  }

  void one(const VectorDiff<T>& d, DiffBatch<U>& out) {
    if (detail::route_single(
            d, kept_.size(), [&](std::size_t at) { insert_one(at, d.value, d.op, out); },
            [&](std::size_t at) { remove_one(at, d.op, out); }))
      return;
    switch (d.op) {
      case DiffOp::append: {
        std::vector<U> kept = keep_all(d.values);
        if (!kept.empty()) out.push_back(VectorDiff<U>::append(std::move(kept)));
        break;
      }
      case DiffOp::clear:
        if (kept_count_ > 0) out.push_back(VectorDiff<U>::clear());
        kept_.clear();
        kept_count_ = 0;
        break;
      case DiffOp::push_front:
      case DiffOp::push_back:
      case DiffOp::insert:
      case DiffOp::pop_front:
      case DiffOp::pop_back:
      case DiffOp::remove:
        break;  // routed above
      case DiffOp::set: {
        assert(d.index < kept_.size());
        std::optional<U> m = map_(d.value);
        const bool was = kept_[d.index] != 0;
        if (!was && !m) break;
        const std::size_t j = rank(d.index);
        kept_[d.index] = m ? 1 : 0;
        if (was && m) {
          out.push_back(VectorDiff<U>::set(j, std::move(*m)));
        } else if (was) {
          --kept_count_;
          out.push_back(VectorDiff<U>::remove(j));
        } else {
          ++kept_count_;
          out.push_back(VectorDiff<U>::insert(j, std::move(*m)));
        }
        break;
      }
      case DiffOp::truncate: {
        if (d.index >= kept_.size()) break;
        const std::size_t j = rank(d.index);
        kept_.resize(d.index);
        if (j < kept_count_) out.push_back(VectorDiff<U>::truncate(j));
        kept_count_ = j;
        break;
      }
      case DiffOp::reset:
        kept_.clear();
        kept_count_ = 0;
        out.push_back(VectorDiff<U>::reset(keep_all(d.values)));
        break;
    }
  }

  Mapper map_;
  std::vector<std::uint8_t> kept_;  // kept_[i] == 1 iff input item i is in the output
  std::size_t kept_count_ = 0;      // == count of 1s in kept_ == output size
};

}  // namespace herald::live::detail
