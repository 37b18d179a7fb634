// The Speed automaton of the leftmost kinds in byte mode without whole
// words: a DFA compiled from the leftmost NFA (noncontiguous.hpp), which
// finds a leftmost match in one forward pass (leftmost_search.hpp).
//
// Why a second automaton when leftmost_at (search.hpp) answers the same
// question with the overlapping one: leftmost_at must look at every
// overlapping occurrence to pick the leftmost (with 100,000 English words
// there are 1.6 a byte of text), and while a candidate is pending each step
// also loads the state's depth to know when to stop. The K2 table had it at
// 0.38-0.93x the Rust crate's DFA, which builds this automaton. Here the
// NFA has already made the choice: a match state carries one candidate, and
// the walk stops at the dead state, so a step is the same one load and one
// compare as the overlapping scan's.
//
// Not for whole words: the filter rejects candidates after the fact, and the
// automaton has pruned the alternatives (shorter or later keywords) that
// should then win. Not for Unicode folding: its matches are found by units,
// and leftmost_at's code-point bookkeeping stays in one place. Both keep
// leftmost_at over the overlapping automaton, which is also the plain twin
// that the tests compare this scan against.
// Over either table: the flat DFA (dfa.hpp) or, past
// Options::dense_table_bytes, the one with sparse rows for deep states
// (hybrid_dfa.hpp), which numbers its match states consecutively too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "match/detail/dfa.hpp"
#include "match/detail/hybrid_dfa.hpp"
#include "match/detail/noncontiguous.hpp"
#include "match/ids.hpp"
#include "match/options.hpp"

namespace herald::match::detail {

// The leftmost NFA of `kind` (LeftmostFirst or LeftmostLongest).
[[nodiscard]] NoncontiguousNFA leftmost_nfa(const std::vector<std::string>& folded, MatchKind kind);

template <class Table>
class LeftmostAutomaton {
 public:
  using State = typename Table::State;
  // A match state's choice: the keyword and its length in bytes.
  struct Candidate {
    PatternID id;
    std::uint32_t bytes = 0;
  };

  // `table` compiled from leftmost_nfa(folded, kind), ok().
  LeftmostAutomaton(Table table, const std::vector<std::string>& folded)
      : table_(std::move(table)), first_match_row_(table_.first_match_row()) {
    const std::uint32_t end = table_.end_match_row();
    candidates_.reserve(end - first_match_row_);
    for (std::uint32_t r = first_match_row_; r < end; ++r) {
      const PatternID id = table_.row_matches(r).front();
      // Safety: a keyword is at most kMaxKeywordBytes long.
      candidates_.push_back({id, static_cast<std::uint32_t>(folded[id.value].size())});
    }
  }

  [[nodiscard]] State start() const { return table_.start(); }
  [[nodiscard]] State next(State s, std::uint8_t byte) const { return table_.next(s, byte); }
  // A match state or the dead state: the scan's one rare branch.
  [[nodiscard]] bool is_special(State s) const { return table_.is_special(s); }
  [[nodiscard]] bool is_dead(State s) const { return table_.is_dead(s); }
  // A match state (not the dead one).
  [[nodiscard]] bool is_match(State s) const { return table_.is_match(s); }
  // A match state's candidate: the first of its list, the longest keyword
  // ending here, the one that starts leftmost (noncontiguous.hpp's header).
  // Kept apart from the match lists with its length, so that taking it is
  // one load after the row's division, not three (list offset, list entry,
  // pattern length): a dense dictionary takes one every few bytes.
  [[nodiscard]] Candidate candidate(State s) const {
    return candidates_[table_.row_of(s) - first_match_row_];
  }

  [[nodiscard]] const Table& table() const { return table_; }
  [[nodiscard]] std::size_t state_count() const { return table_.state_count(); }
  [[nodiscard]] std::size_t memory_bytes() const {
    return table_.memory_bytes() + candidates_.capacity() * sizeof(Candidate);
  }

 private:
  Table table_;
  std::uint32_t first_match_row_ = 0;
  std::vector<Candidate> candidates_;  // by row, from first_match_row_
};

using LeftmostDFA = LeftmostAutomaton<DFA>;
using LeftmostHybridDFA = LeftmostAutomaton<HybridDFA>;

template <class A>
inline constexpr bool kIsLeftmostAutomaton =
    std::is_same_v<A, LeftmostDFA> || std::is_same_v<A, LeftmostHybridDFA>;

}  // namespace herald::match::detail
