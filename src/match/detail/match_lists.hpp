// The match lists of an automaton's states, in one array: list i is
// ids_[begin_[i], begin_[i + 1]). Each searching automaton numbers its
// states its own way (the contiguous NFA keeps the trie's numbers; the DFAs
// number rows so that match states come last, dfa.hpp and hybrid_dfa.hpp),
// so it gives the order, and the lists are laid out in it. One copy of the
// layout for the three: a scan reads a list as two adjacent offsets and a
// run of ids, whatever the automaton.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "match/detail/noncontiguous.hpp"
#include "match/ids.hpp"

namespace herald::match::detail {

class MatchLists {
 public:
  MatchLists() = default;
  // List i is the NFA's list of state order[i]; an entry that is no NFA
  // state (a leftmost automaton's dead state) gets an empty list.
  MatchLists(const NoncontiguousNFA& nfa, std::span<const std::uint32_t> order);

  [[nodiscard]] std::span<const PatternID> operator[](std::uint32_t i) const {
    return {ids_.data() + begin_[i], ids_.data() + begin_[i + 1]};
  }
  [[nodiscard]] bool empty(std::uint32_t i) const { return begin_[i] == begin_[i + 1]; }
  [[nodiscard]] std::size_t memory_bytes() const {
    return begin_.capacity() * sizeof(std::uint32_t) + ids_.capacity() * sizeof(PatternID);
  }

 private:
  std::vector<std::uint32_t> begin_;  // size order.size() + 1
  std::vector<PatternID> ids_;
};

}  // namespace herald::match::detail
