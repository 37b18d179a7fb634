// Typed 32-bit identifiers used across the match engine. A pattern id is the
// index of the keyword in the list given to the builder; a state id indexes
// an automaton's state arrays. Keeping them distinct types stops a pattern id
// from being used as a state index, which compiles silently with bare ints.
#pragma once

#include <compare>
#include <cstdint>

namespace herald::match {

struct PatternID {
  std::uint32_t value = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>
  friend constexpr auto operator<=>(PatternID, PatternID) = default;
};

struct StateID {
  std::uint32_t value = 0;
  friend constexpr auto operator<=>(StateID, StateID) = default;
};

}  // namespace herald::match
