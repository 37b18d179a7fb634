// The build-time automaton: a trie of the (folded) keywords with failure
// links and complete match lists. Every searching automaton (contiguous.hpp,
// dfa.hpp) is compiled from it and keeps its state numbering, so state ids,
// depths and match lists mean the same thing in all of them.
//
// Plain trie first: state 0 is the root (the empty string); each keyword adds
// the states of its prefixes. The failure link of a state for string w points
// to the state for the longest proper suffix of w that is also a trie prefix.
// Following failure links on a missing transition gives the classic
// Aho-Corasick scan: after reading text[0..i), the current state is the
// longest suffix of the text read that is a prefix of some keyword.
//
// The leftmost kinds can have an automaton of their own (Trie::Leftmost),
// which finds each leftmost match in one forward pass, stopping at a *dead*
// state instead of rescanning. It differs from the overlapping one in two
// ways (the construction of the Rust aho-corasick crate, re-derived here):
//
// * LeftmostFirst leaves out every keyword that has an earlier keyword as a
//   proper prefix: wherever it would match, the earlier one matches at the
//   same start and is preferred, so it can never be reported.
// * A state whose trie path contains a keyword's end (the state itself or
//   an ancestor other than the root) fails to the dead state, not to its
//   suffix. That keyword starts at the path's first byte; a failure target
//   is a proper suffix of the path, so it starts later and could only lead
//   to matches that the leftmost rule must not prefer. The match found so
//   far is final once no trie edge extends the path. Such a state's match
//   list is its own keywords only. Every other state inherits its failure
//   target's list as usual: after reading w, list[0] is then the
//   longest suffix of w that is a keyword, the candidate with the leftmost
//   start.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "match/ids.hpp"

namespace herald::match::detail {

struct TrieState {
  std::vector<std::pair<std::uint8_t, StateID>> next;  // sorted by byte
  StateID fail{0};
  std::uint32_t depth = 0;  // bytes from the root
};

// One keyword as the automaton sees it.
struct PatternInfo {
  std::uint32_t bytes = 0;  // length of the folded bytes (automaton steps)
  std::uint32_t units = 0;  // code points (units) of the folded keyword
};

// The failure link of states after a leftmost match (Trie::Leftmost only):
// a state with no edges and no matches whose every transition is itself.
// It is not in states() or bfs_order(); an automaton compiled from a
// leftmost NFA adds it as a state of its own.
inline constexpr StateID kDeadState{0xFFFFFFFEu};

class NoncontiguousNFA {
 public:
  enum class Trie : std::uint8_t { Overlapping, LeftmostFirst, LeftmostLongest };

  // Builds from the folded keywords (already validated). Leaves `matches` of
  // each state holding its own patterns (in id order) followed by its
  // failure state's list: longest first, then by id (leftmost tries: see
  // above).
  explicit NoncontiguousNFA(const std::vector<std::string>& folded, Trie trie = Trie::Overlapping);

  // Whether failure links may be kDeadState.
  [[nodiscard]] bool leftmost() const { return trie_ != Trie::Overlapping; }

  [[nodiscard]] const std::vector<TrieState>& states() const { return states_; }
  [[nodiscard]] const std::vector<std::vector<PatternID>>& matches() const { return matches_; }
  // States in breadth-first order (parents before children, hence every
  // failure target before the states that point to it).
  [[nodiscard]] const std::vector<StateID>& bfs_order() const { return bfs_; }
  // Goto transition (trie edge) or nullopt-like 0xFFFFFFFF.
  [[nodiscard]] std::uint32_t child(StateID s, std::uint8_t b) const;

 private:
  Trie trie_;
  std::vector<TrieState> states_;
  std::vector<std::vector<PatternID>> matches_;
  std::vector<StateID> bfs_;
};

// Byte classes: two bytes share a class when no keyword byte distinguishes
// them. Here every byte that occurs in some folded keyword gets a class of
// its own and all other bytes share class 0, with ASCII upper case mapped to
// its lower-case class when folding is on. Fewer classes shrink the DFA from
// 256 columns to (distinct keyword bytes + 1).
struct ByteClasses {
  std::array<std::uint16_t, 256> of{};             // up to 257 classes when all bytes occur
  std::array<std::uint8_t, 257> representative{};  // one byte of each class
  std::uint32_t count = 1;
};

[[nodiscard]] ByteClasses make_byte_classes(const std::vector<std::string>& folded,
                                            bool fold_ascii_upper);

}  // namespace herald::match::detail
