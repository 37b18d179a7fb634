// Where each label of a name starts in its wire form, for walks that try a
// name's suffixes (longest-matching zone, closest encloser) without copies.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "dns/name.hpp"

namespace herald::dns::detail {

// A name has at most 127 labels (255 octets, each label at least 2), so 128
// offsets hold them and the root. Fills at[0..count) with each label's
// offset and at[count] with the root label's; returns the label count.
inline std::size_t label_offsets(const Name& n, std::array<std::uint8_t, 128>& at) {
  auto w = n.wire();
  std::size_t count = 0;
  for (std::size_t p = 0; w[p] != 0; p += 1u + w[p]) at[count++] = static_cast<std::uint8_t>(p);
  at[count] = static_cast<std::uint8_t>(w.size() - 1);  // the root label
  return count;
}

}  // namespace herald::dns::detail
