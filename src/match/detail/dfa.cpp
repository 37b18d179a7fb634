#include "match/detail/dfa.hpp"

namespace herald::match::detail {

DFA::DFA(const NoncontiguousNFA& nfa, const ByteClasses& classes)
    : class_count_(classes.count), classes_(classes.of) {
  while ((1u << shift_) < classes.count) ++shift_;
  const std::uint64_t stride = 1ull << shift_;
  const auto& states = nfa.states();
  if (states.size() * stride >= kMatchBit) return;
  ok_ = true;
  table_.assign(states.size() * stride, 0);
  depth_.resize(states.size());
  match_begin_.resize(states.size() + 1);
  for (std::uint32_t s = 0; s < states.size(); ++s) {
    depth_[s] = states[s].depth;
    match_begin_[s] = static_cast<std::uint32_t>(match_ids_.size());
    const auto& m = nfa.matches()[s];
    match_ids_.insert(match_ids_.end(), m.begin(), m.end());
  }
  match_begin_[states.size()] = static_cast<std::uint32_t>(match_ids_.size());
  match_ids_.shrink_to_fit();

  const auto entry = [&](std::uint32_t target) {
    return static_cast<std::uint32_t>(target * stride) |
           (nfa.matches()[target].empty() ? 0u : kMatchBit);
  };
  // Breadth-first, so the row of fail(s) (strictly shallower) is complete
  // before row s copies from it. The root's missing edges loop to the root.
  for (const StateID sid : nfa.bfs_order()) {
    const std::uint32_t s = sid.value;
    const std::uint32_t fail_row = states[s].fail.value * static_cast<std::uint32_t>(stride);
    for (std::uint32_t c = 0; c < classes.count; ++c) {
      const std::uint32_t child = nfa.child(sid, classes.representative[c]);
      std::uint32_t value;
      if (child != 0xFFFFFFFFu) {
        value = entry(child);
      } else if (s == 0) {
        value = entry(0);
      } else {
        value = table_[fail_row + c];
      }
      table_[s * stride + c] = value;
    }
  }
}

std::size_t DFA::memory_bytes() const {
  return sizeof(*this) + table_.capacity() * 4 + match_begin_.capacity() * 4 +
         match_ids_.capacity() * 4 + depth_.capacity() * 4;
}

}  // namespace herald::match::detail
