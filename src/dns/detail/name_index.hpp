// A case-insensitive hash index from names to 32-bit indices into a table
// the caller owns (zone apexes in ZoneDb, nodes in a Zone).
//
// Open addressing with linear probing over a power-of-two array of
// (32 bits of hash, index) pairs, built once and never changed: a lookup is
// one hash of the name's wire octets and, on a hash hit, one folded compare
// against the stored name. A lookup takes the wire octets as a span, so the
// suffixes of a query name (every zone cut candidate) are looked up in place,
// without making a Name per suffix and without any allocation.
//
// Invariant: the array is at most half full, so every probe sequence meets
// an empty slot and a miss terminates.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dns/detail/ascii.hpp"

namespace herald::dns::detail {

class NameIndex {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;

  // The hash used for every key: the codec's folded hash of the wire octets.
  static std::uint64_t hash(std::span<const std::uint8_t> wire) noexcept {
    return ihash(wire.data(), wire.size());
  }

  // Builds the index over `count` names; `wire_of(i)` returns the wire form
  // of name i. Names equal under case folding must not repeat (the caller
  // merges them first).
  template <class WireOf>
  void build(std::uint32_t count, WireOf wire_of) {
    std::size_t cap = 16;
    while (cap < 2 * static_cast<std::size_t>(count)) cap *= 2;
    slots_.assign(cap, Slot{0, kNone});
    mask_ = cap - 1;
    for (std::uint32_t i = 0; i < count; ++i) {
      std::uint64_t h = hash(wire_of(i));
      std::size_t at = h & mask_;
      while (slots_[at].index != kNone) at = (at + 1) & mask_;
      slots_[at] = Slot{static_cast<std::uint32_t>(h >> 32), i};
    }
  }

  // The index of the name equal (case-insensitively) to `wire`, or kNone.
  template <class WireOf>
  std::uint32_t find(std::span<const std::uint8_t> wire, std::uint64_t h,
                     WireOf wire_of) const noexcept {
    if (slots_.empty()) return kNone;
    std::uint32_t tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t at = h & mask_;; at = (at + 1) & mask_) {
      const Slot& s = slots_[at];
      if (s.index == kNone) return kNone;
      if (s.tag != tag) continue;
      std::span<const std::uint8_t> other = wire_of(s.index);
      if (other.size() == wire.size() && iequal_swar(other.data(), wire.data(), wire.size())) {
        return s.index;
      }
    }
  }

  std::size_t memory_bytes() const noexcept { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    std::uint32_t tag;  // the high half of the hash (the low half picks the slot)
    std::uint32_t index;
  };
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

}  // namespace herald::dns::detail
