// The Speed preset: a complete DFA in one flat array. Row r holds one entry
// per byte class, no more (a state's index is its offset divided by the row
// width: exact_divisor.hpp makes that a shift and a multiply, on the match
// path only). Each entry is the *premultiplied* offset of the next state's
// row, so a step is
//
//     s = table[s + classes[byte]]
//
// with no multiplication and no failure walk: the failure links were resolved
// at build time (entry = trie edge if any, else the failure state's entry,
// filled in breadth-first order so the failure state's row is complete).
//
// Match states are numbered after all other states, so "the target has
// matches" is `s >= match_from_`: a compare beside the load chain, not in it.
// (The first version kept a match bit in bit 31 of each entry and masked it
// off before every load; see the numbers in dfa.cpp.)
//
// Compiled from a leftmost NFA (noncontiguous.hpp), the DFA has one more
// row, the dead state's, numbered just before the match states: "match or
// dead" is then one compare too (`is_special`), and the leftmost scan
// (leftmost_dfa.hpp) tells the two apart only on that rare branch.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "match/detail/exact_divisor.hpp"
#include "match/detail/match_lists.hpp"
#include "match/detail/noncontiguous.hpp"
#include "match/ids.hpp"

namespace herald::match::detail {

class DFA {
 public:
  using State = std::uint32_t;

  // The bytes of a flat table of `rows` rows: one State per byte class.
  // The Speed preset compares it with Options::dense_table_bytes to choose
  // between this table and the hybrid one (hybrid_dfa.hpp), which sizes its
  // flat part the same way.
  [[nodiscard]] static constexpr std::uint64_t table_bytes(std::uint64_t rows,
                                                           std::uint32_t classes) {
    return rows * classes * sizeof(State);
  }

  // Fails (returns false through ok()) when states x byte classes >= 2^31.
  // From a leftmost NFA (nfa.leftmost()), it has the dead state too.
  DFA(const NoncontiguousNFA& nfa, const ByteClasses& classes);
  [[nodiscard]] bool ok() const { return ok_; }

  [[nodiscard]] State start() const { return 0; }
  [[nodiscard]] State next(State s, std::uint8_t byte) const { return table_[s + classes_[byte]]; }
  [[nodiscard]] bool is_match(State s) const { return s >= match_from_; }
  // A match state or the dead state (leftmost DFAs; else is_match).
  [[nodiscard]] bool is_special(State s) const { return s >= special_from_; }
  [[nodiscard]] bool is_dead(State s) const { return s == dead_; }
  [[nodiscard]] std::span<const PatternID> matches(State s) const { return row_matches(row_of(s)); }
  [[nodiscard]] std::uint32_t depth(State s) const { return depth_[row_.divide(s)]; }
  // A state's row number; match states are rows [first_match_row(),
  // end_match_row()), the last ones.
  [[nodiscard]] std::uint32_t row_of(State s) const { return row_.divide(s); }
  [[nodiscard]] std::uint32_t first_match_row() const { return row_.divide(match_from_); }
  [[nodiscard]] std::uint32_t end_match_row() const {
    return static_cast<std::uint32_t>(depth_.size());
  }
  [[nodiscard]] std::span<const PatternID> row_matches(std::uint32_t row) const {
    return matches_[row];
  }
  [[nodiscard]] std::size_t memory_bytes() const;
  [[nodiscard]] std::size_t state_count() const { return depth_.size(); }

 private:
  bool ok_ = false;
  ExactDivisor row_;                // offset -> state index
  std::uint32_t match_from_ = 0;    // premultiplied offset of the first match state
  std::uint32_t special_from_ = 0;  // the dead state's row if any, else match_from_
  // The dead state's row; without one, a value no entry holds (entries are
  // below 2^31).
  std::uint32_t dead_ = 0xFFFFFFFFu;
  std::array<std::uint16_t, 256> classes_{};
  std::vector<std::uint32_t> table_;
  MatchLists matches_;                // by row
  std::vector<std::uint32_t> depth_;  // by new state index
};

}  // namespace herald::match::detail
