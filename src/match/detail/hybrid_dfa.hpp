// The Speed preset's automaton for dictionaries whose flat DFA (dfa.hpp)
// would pass Options::dense_table_bytes: shallow states keep a flat row of
// one entry per byte class, deep states a sparse row of the few entries in
// which they differ from a shallow state's row.
//
// Why depth decides. A flat row costs class_count x 4 bytes whatever the
// state; the trie's states pile up at depth 5 to 9 (100,000 English words:
// 47,289 states of depth <= 5, 232,848 in all, 71 classes: 66 MB of rows),
// yet a scan spends most of its steps near the root, because text mostly
// does not continue a keyword (K2's English haystack: 63% of steps end in a
// state of depth <= 5, 72% in depth <= 6). A deep state's row is its
// failure state's row except at its own trie edges: its failure state is a
// proper suffix, hence shallower, so after at most a few failure steps it is
// a shallow one. The sparse row stores exactly those differences:
//
//     row(s) = row(base(s)) overridden at diff(s), where
//     base(s) = fail(s) if it has a flat row, else base(fail(s)), and
//     diff(s) = classes of s's own edges, plus diff(fail(s)) if fail(s) is
//               sparse.
//
// The states of depth <= D have flat rows, D as large as the budget allows:
// that set is closed under failure links (a failure target is shallower),
// so every chain of failure links reaches a flat row, and base(s) exists.
// A deeper state whose sparse row would take as many bytes as a flat one
// gets a flat row too (its diff gathers a long chain's edges: words over a
// few letters, where every short string is a prefix), so no state costs
// more than in the flat DFA; those rows come on top of the budget.
//
// Measured against the flat DFA on K2's 32 MiB haystacks (an ad-hoc loop
// counting overlapping matches, both automata from the same NFA, equal
// counts; dev-2c, 2026-12-03), four interleaved walks, rows only:
//   English 100,000 words: 69.9 MB -> 25.7 MB (D = 6), 1.04-1.17x as fast
//     over D = 4..7 (one walk: 1.5x); D = 8 (44 MB) was 0.96x;
//   Korean 100,000 words: 86.5 MB -> 19.2 MB (D = 7), 1.07-1.24x;
//   English and Korean 10,000 words: 0.30-0.83x at every D: the flat table
//     (12 MB) pays there, so the budget keeps it.
// The larger table's rows are mostly cache misses either way; the smaller
// one keeps the shallow rows, where most steps land, in cache. The
// reproducible figures, through find and with the flat table timed in the
// same rounds, are K2's (docs/benchmarks.md, bench_match_k2 --flat-twin).
//
// State ids are 32-bit, as in the DFA, and a step is still one load for a
// shallow state:
//
//     [0, sparse_from)  flat: the premultiplied offset of the row in
//                       table_ (non-match rows, the dead state's row if the
//                       NFA is leftmost, then match rows)
//     [sparse_from, ..) sparse: sparse_from + the offset of the sparse row
//                       in sparse_ (match rows first, then non-match rows)
//
// so "is a match" is one range test, "match or dead" (the leftmost scan's
// one rare branch, as in dfa.hpp) another, and "is sparse" one compare. A
// sparse row is [base offset, n, row number, class_1, target_1, ...,
// class_n, target_n]; row numbers index the match lists and depths (flat
// rows first, by offset, then sparse rows in order), so the match states'
// numbers are consecutive: leftmost_dfa.hpp's candidates are a table by
// row number, over either automaton.
//
// A sparse row of one entry (a deep state with one edge whose failure
// state has a flat row) is read without a branch: the base row's entry is
// loaded whether or not the byte takes the edge, and a conditional move
// picks. Whether the text continues a keyword is what the predictor cannot
// guess; the extra load is to a flat row, shallow, where most steps land.
// K2 Korean 100,000 words, overlapping, four lanes, six alternated runs of
// each build: 0.81-1.19x Hyperscan (median 0.96) -> 1.01-1.14x (median
// 1.05).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "match/detail/dfa.hpp"
#include "match/detail/exact_divisor.hpp"
#include "match/detail/match_lists.hpp"
#include "match/detail/noncontiguous.hpp"
#include "match/ids.hpp"

namespace herald::match::detail {

class HybridDFA {
 public:
  using State = std::uint32_t;

  // Flat rows for the states of depth <= D, D the largest whose flat rows
  // fit in `dense_bytes` (the root's always has one), and for deeper states
  // whose sparse row would be no smaller. From a leftmost NFA
  // (nfa.leftmost()) it has the dead state too. Fails (ok() false) when the
  // ids would not fit in 32 bits.
  HybridDFA(const NoncontiguousNFA& nfa, const ByteClasses& classes, std::size_t dense_bytes);
  [[nodiscard]] bool ok() const { return ok_; }

  [[nodiscard]] State start() const { return 0; }
  [[nodiscard]] State next(State s, std::uint8_t byte) const { return step(s, classes_[byte]); }
  [[nodiscard]] bool is_match(State s) const { return s - match_from_ < match_end_ - match_from_; }
  // A match state or the dead state (leftmost NFAs; else is_match).
  [[nodiscard]] bool is_special(State s) const {
    return s - special_from_ < match_end_ - special_from_;
  }
  [[nodiscard]] bool is_dead(State s) const { return s == dead_; }
  [[nodiscard]] std::span<const PatternID> matches(State s) const { return row_matches(row_of(s)); }
  [[nodiscard]] std::uint32_t depth(State s) const { return depth_[row_of(s)]; }
  // A state's row number; match states are rows [first_match_row(),
  // end_match_row()).
  [[nodiscard]] std::uint32_t row_of(State s) const {
    return s < sparse_from_ ? row_.divide(s) : sparse_[s - sparse_from_ + 2];
  }
  [[nodiscard]] std::uint32_t first_match_row() const { return row_.divide(match_from_); }
  [[nodiscard]] std::uint32_t end_match_row() const { return end_match_row_; }
  [[nodiscard]] std::span<const PatternID> row_matches(std::uint32_t row) const {
    return matches_[row];
  }
  [[nodiscard]] std::size_t memory_bytes() const;
  [[nodiscard]] std::size_t state_count() const { return depth_.size(); }
  // States with a flat row; the others have a sparse one.
  [[nodiscard]] std::size_t dense_state_count() const { return table_.size() / class_count_; }

 private:
  // The entry of s's row for byte class c.
  [[nodiscard]] State step(State s, std::uint32_t c) const {
    if (s < sparse_from_) [[likely]]
      return table_[s + c];
    const std::uint32_t* row = &sparse_[s - sparse_from_];
    const std::uint32_t n = row[1];
    if (n == 1) {  // without a branch: see the header
      const State base = table_[row[0] + c];
      return row[3] == c ? row[4] : base;
    }
    for (std::uint32_t k = 0; k < n; ++k) {
      if (row[3 + 2 * k] == c) return row[4 + 2 * k];
    }
    return table_[row[0] + c];
  }

  bool ok_ = false;
  std::uint32_t class_count_ = 0;
  ExactDivisor row_;
  std::uint32_t special_from_ = 0;  // the dead state's row if any, else match_from_
  std::uint32_t match_from_ = 0;    // first match id (a flat row's offset)
  std::uint32_t sparse_from_ = 0;   // first sparse id
  std::uint32_t match_end_ = 0;     // first sparse non-match id
  std::uint32_t end_match_row_ = 0;
  // The dead state's row; without one, a value no id holds.
  std::uint32_t dead_ = 0xFFFFFFFFu;
  std::array<std::uint16_t, 256> classes_{};
  std::vector<std::uint32_t> table_;   // flat rows
  std::vector<std::uint32_t> sparse_;  // sparse rows
  MatchLists matches_;                 // by row number
  std::vector<std::uint32_t> depth_;   // by row number
};

}  // namespace herald::match::detail
