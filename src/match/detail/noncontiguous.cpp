#include "match/detail/noncontiguous.hpp"

#include <algorithm>

#include "match/detail/casefold.hpp"

namespace herald::match::detail {

std::uint32_t NoncontiguousNFA::child(StateID s, std::uint8_t b) const {
  const auto& next = states_[s.value].next;
  const auto it = std::lower_bound(next.begin(), next.end(), b,
                                   [](const auto& e, std::uint8_t key) { return e.first < key; });
  return (it != next.end() && it->first == b) ? it->second.value : 0xFFFFFFFFu;
}

NoncontiguousNFA::NoncontiguousNFA(const std::vector<std::string>& folded, Trie trie)
    : trie_(trie) {
  states_.emplace_back();
  std::vector<std::vector<PatternID>> own(1);
  for (std::uint32_t id = 0; id < folded.size(); ++id) {
    StateID s{0};
    bool shadowed = false;
    for (const char c : folded[id]) {
      // An earlier keyword is a proper prefix of this one: never reported
      // under LeftmostFirst (see the header). Checked before each byte, so
      // an equal keyword is kept (the lower id comes first in the list).
      if (trie_ == Trie::LeftmostFirst && !own[s.value].empty()) {
        shadowed = true;
        break;
      }
      // Safety: chars are reinterpreted as the unsigned bytes they hold.
      const auto b = static_cast<std::uint8_t>(c);
      std::uint32_t n = child(s, b);
      if (n == 0xFFFFFFFFu) {
        n = static_cast<std::uint32_t>(states_.size());
        TrieState fresh;
        fresh.depth = states_[s.value].depth + 1;
        states_.push_back(std::move(fresh));
        own.emplace_back();
        auto& next = states_[s.value].next;
        next.insert(std::lower_bound(next.begin(), next.end(), b,
                                     [](const auto& e, std::uint8_t key) { return e.first < key; }),
                    {b, StateID{n}});
      }
      s = StateID{n};
    }
    if (!shadowed) own[s.value].push_back(PatternID{id});
  }

  // Breadth-first: a state's failure target is shallower, so it is final
  // (links and match list) before the state is visited.
  matches_.assign(states_.size(), {});
  bfs_.reserve(states_.size());
  bfs_.push_back(StateID{0});
  matches_[0] = own[0];
  // Leftmost tries: whether the state's trie path contains a keyword's end.
  std::vector<bool> after_match(leftmost() ? states_.size() : 0);
  for (std::size_t head = 0; head < bfs_.size(); ++head) {
    const StateID s = bfs_[head];
    for (const auto& [b, n] : states_[s.value].next) {
      bfs_.push_back(n);
      auto& m = matches_[n.value];
      m = own[n.value];
      if (leftmost() && (after_match[s.value] || !m.empty())) {
        after_match[n.value] = true;
        states_[n.value].fail = kDeadState;
        continue;
      }
      StateID f{0};
      if (s.value != 0) {
        // Walk s's failure chain for a state with a b-edge. Terminates: each
        // step strictly decreases depth, and the root or the dead state
        // (whose every transition is itself) ends the walk.
        StateID t = states_[s.value].fail;
        for (;;) {
          if (t == kDeadState) {
            f = kDeadState;
            break;
          }
          const std::uint32_t c = child(t, b);
          if (c != 0xFFFFFFFFu) {
            f = StateID{c};
            break;
          }
          if (t.value == 0) break;
          t = states_[t.value].fail;
        }
      }
      states_[n.value].fail = f;
      if (f != kDeadState) m.insert(m.end(), matches_[f.value].begin(), matches_[f.value].end());
    }
  }
}

ByteClasses make_byte_classes(const std::vector<std::string>& folded, bool fold_ascii_upper) {
  std::array<bool, 256> used{};
  for (const auto& k : folded) {
    // Safety: unsigned view of the keyword's bytes.
    for (const char c : k) used[static_cast<std::uint8_t>(c)] = true;
  }
  ByteClasses bc;
  bc.representative[0] = 0;
  for (std::uint32_t b = 0; b < 256; ++b) {
    if (!used[b]) continue;
    bc.of[b] = static_cast<std::uint16_t>(bc.count);
    bc.representative[bc.count] = static_cast<std::uint8_t>(b);
    ++bc.count;
  }
  // Class 0's representative must be a byte outside every keyword; if all
  // 256 bytes occur, class 0 is simply empty and never looked up.
  for (std::uint32_t b = 0; b < 256; ++b) {
    if (!used[b]) {
      bc.representative[0] = static_cast<std::uint8_t>(b);
      break;
    }
  }
  if (fold_ascii_upper) {
    for (std::uint32_t b = 'A'; b <= 'Z'; ++b)
      bc.of[b] = bc.of[fold_ascii(static_cast<std::uint8_t>(b))];
  }
  return bc;
}

}  // namespace herald::match::detail
