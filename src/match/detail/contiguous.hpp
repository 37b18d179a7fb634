// The contiguous NFA: the trie with failure links packed into flat arrays,
// the Balanced and MemoryEfficient presets. States up to `dense_depth` store
// one transition per byte class (one load, no search); deeper states, which
// are many and have few children, store sorted (class, next) pairs. A missing
// transition follows the failure link. The root is always dense and complete
// (a missing root edge loops to the root), which is what ends every
// failure walk.
//
// Balanced uses dense_depth 2 (the root and its children: where most of the
// scan's time is spent on natural text); MemoryEfficient uses 0 (only the
// root dense).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "match/detail/match_lists.hpp"
#include "match/detail/noncontiguous.hpp"
#include "match/ids.hpp"

namespace herald::match::detail {

class ContiguousNFA {
 public:
  using State = std::uint32_t;
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  // From an overlapping NFA only (!nfa.leftmost()): a failure walk here
  // ends at the root, and a leftmost NFA's links may lead to kDeadState.
  ContiguousNFA(const NoncontiguousNFA& nfa, const ByteClasses& classes, std::uint32_t dense_depth);

  [[nodiscard]] State start() const { return 0; }

  [[nodiscard]] State next(State s, std::uint8_t byte) const {
    const std::uint32_t c = classes_[byte];
    // Terminates: each failure step lowers the depth; the root is complete.
    for (;;) {
      const Node& n = nodes_[s];
      if (n.dense) {
        const std::uint32_t t = trans_[n.trans + c];
        if (t != kNone) return t;
      } else {
        const std::uint32_t end = n.trans + n.count;
        for (std::uint32_t k = n.trans; k < end; ++k) {
          const std::uint32_t key = keys_[k];
          if (key == c) return trans_[k];
          if (key > c) break;  // keys are sorted
        }
      }
      s = n.fail;
    }
  }

  [[nodiscard]] bool is_match(State s) const { return !matches_.empty(s); }
  [[nodiscard]] std::span<const PatternID> matches(State s) const { return matches_[s]; }
  [[nodiscard]] std::uint32_t depth(State s) const { return depth_[s]; }
  [[nodiscard]] std::size_t memory_bytes() const;
  [[nodiscard]] std::size_t state_count() const { return nodes_.size(); }

 private:
  struct Node {
    std::uint32_t fail = 0;
    std::uint32_t trans = 0;  // first index into trans_ (and keys_ if sparse)
    std::uint16_t count = 0;  // sparse: number of pairs
    bool dense = false;
  };
  std::array<std::uint16_t, 256> classes_{};
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> trans_;
  std::vector<std::uint16_t> keys_;  // parallel to trans_; unused slots for dense states
  MatchLists matches_;               // by state (the trie's numbers)
  std::vector<std::uint32_t> depth_;
};

}  // namespace herald::match::detail
