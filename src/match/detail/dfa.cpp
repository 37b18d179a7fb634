#include "match/detail/dfa.hpp"

#include <algorithm>

namespace herald::match::detail {

DFA::DFA(const NoncontiguousNFA& nfa, const ByteClasses& classes)
    : row_(classes.count), classes_(classes.of) {
  const std::uint64_t stride = classes.count;
  const auto& states = nfa.states();
  const auto trie = static_cast<std::uint32_t>(states.size());
  // A leftmost NFA's dead state becomes a row of its own, index `trie`.
  const bool dead = nfa.leftmost();
  const std::uint32_t n = trie + (dead ? 1 : 0);
  if (n * stride >= 0x80000000ull) return;
  ok_ = true;
  // Match states last. Measured against the first version (a match bit in
  // bit 31 of each entry, masked off before each load), K2 1,000 words,
  // MB/s as a ratio to Hyperscan in the same run (dev-2c, 2026-11-29):
  // English 0.305 (bit) vs 0.286 (ordering), Korean 0.444 vs 0.459; K1
  // Speed find-reuse 618 vs 612 ns. No difference beyond noise: the scan is
  // bound by the table's cache misses (1.7 MB at 1,000 words), not by the
  // mask. Kept because the compare leaves the load chain and frees bit 31.
  // New numbering: states without matches first (the root among them: it
  // has none, keywords are non-empty), then the dead state if any, then
  // match states.
  std::vector<std::uint32_t> renum(n);
  std::uint32_t next_id = 0;
  for (std::uint32_t s = 0; s < trie; ++s) {
    if (nfa.matches()[s].empty()) renum[s] = next_id++;
  }
  special_from_ = static_cast<std::uint32_t>(next_id * stride);
  if (dead) {
    renum[trie] = next_id++;
    dead_ = special_from_;
  }
  match_from_ = static_cast<std::uint32_t>(next_id * stride);
  for (std::uint32_t s = 0; s < trie; ++s) {
    if (!nfa.matches()[s].empty()) renum[s] = next_id++;
  }
  std::vector<std::uint32_t> old_of(n);
  for (std::uint32_t s = 0; s < n; ++s) old_of[renum[s]] = s;

  table_.assign(n * stride, 0);
  matches_ = MatchLists(nfa, old_of);  // the dead state (`trie`): none
  depth_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (old_of[i] != trie) depth_[i] = states[old_of[i]].depth;  // the dead state: 0
  }

  const auto row = [&](StateID old) {
    return static_cast<std::uint32_t>(renum[old == kDeadState ? trie : old.value] * stride);
  };
  if (dead) std::fill_n(table_.begin() + dead_, stride, dead_);  // dead stays dead
  // Breadth-first, so the row of fail(s) (strictly shallower, or the dead
  // state's, filled above) is complete before row s copies from it. The
  // root's missing edges loop to the root.
  for (const StateID sid : nfa.bfs_order()) {
    const std::uint32_t s = sid.value;
    const std::uint32_t fail_row = row(states[s].fail);
    const std::uint32_t my_row = row(sid);
    for (std::uint32_t c = 0; c < classes.count; ++c) {
      const std::uint32_t child = nfa.child(sid, classes.representative[c]);
      std::uint32_t value;
      if (child != 0xFFFFFFFFu) {
        value = row(StateID{child});
      } else if (s == 0) {
        value = 0;
      } else {
        value = table_[fail_row + c];
      }
      table_[my_row + c] = value;
    }
  }
}

std::size_t DFA::memory_bytes() const {
  return sizeof(*this) + table_.capacity() * 4 + matches_.memory_bytes() + depth_.capacity() * 4;
}

}  // namespace herald::match::detail
