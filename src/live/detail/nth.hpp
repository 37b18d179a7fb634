// Position i of a sequence, as an iterator.
//
// The live views count positions in std::size_t (VectorDiff's index, a
// vector's size) and iterators step by a signed difference type; this is
// the one place the first becomes the second.
#pragma once

#include <cstddef>
#include <iterator>

namespace herald::live::detail {

template <std::random_access_iterator It>
[[nodiscard]] It nth(It first, std::size_t i) {
  // Safety: i is a position within one container (at most its size, which a
  // std::vector keeps within max_size() <= PTRDIFF_MAX), so it fits.
  return first + static_cast<std::iter_difference_t<It>>(i);
}

}  // namespace herald::live::detail
