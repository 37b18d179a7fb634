#include "match/detail/contiguous.hpp"

#include <numeric>

namespace herald::match::detail {

ContiguousNFA::ContiguousNFA(const NoncontiguousNFA& nfa, const ByteClasses& classes,
                             std::uint32_t dense_depth)
    : classes_(classes.of) {
  const auto& states = nfa.states();
  nodes_.resize(states.size());
  depth_.resize(states.size());
  for (std::uint32_t s = 0; s < states.size(); ++s) {
    const TrieState& st = states[s];
    Node& n = nodes_[s];
    n.fail = st.fail.value;
    n.trans = static_cast<std::uint32_t>(trans_.size());
    depth_[s] = st.depth;
    if (s == 0 || st.depth < dense_depth) {
      n.dense = true;
      trans_.resize(trans_.size() + classes.count, s == 0 ? 0 : kNone);
      keys_.resize(trans_.size(), 0);
      for (const auto& [b, next] : st.next) trans_[n.trans + classes.of[b]] = next.value;
    } else {
      // Trie edges are sorted by byte; class ids are assigned in byte order
      // too (make_byte_classes), so the keys come out sorted.
      n.count = static_cast<std::uint16_t>(st.next.size());
      for (const auto& [b, next] : st.next) {
        keys_.push_back(classes.of[b]);
        trans_.push_back(next.value);
      }
    }
  }
  // Exact sizes: memory_bytes() reports what the automaton holds.
  trans_.shrink_to_fit();
  keys_.shrink_to_fit();
  std::vector<std::uint32_t> order(states.size());
  std::iota(order.begin(), order.end(), 0u);  // the trie's own numbers
  matches_ = MatchLists(nfa, order);
}

std::size_t ContiguousNFA::memory_bytes() const {
  return sizeof(*this) + nodes_.capacity() * sizeof(Node) + trans_.capacity() * 4 +
         keys_.capacity() * 2 + matches_.memory_bytes() + depth_.capacity() * 4;
}

}  // namespace herald::match::detail
