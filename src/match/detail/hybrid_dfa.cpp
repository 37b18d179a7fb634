#include "match/detail/hybrid_dfa.hpp"

#include <algorithm>

namespace herald::match::detail {
namespace {

// A sparse row's size in 4-byte words: base, n, row number and n pairs.
std::uint64_t sparse_words(std::size_t n) {
  return 3 + 2 * std::uint64_t{n};
}

}  // namespace

HybridDFA::HybridDFA(const NoncontiguousNFA& nfa, const ByteClasses& classes,
                     std::size_t dense_bytes)
    : class_count_(classes.count), row_(classes.count), classes_(classes.of) {
  const auto& states = nfa.states();
  const auto trie = static_cast<std::uint32_t>(states.size());
  // A leftmost NFA's dead state becomes a flat row of its own, number `trie`.
  const bool dead = nfa.leftmost();
  const std::uint32_t n = trie + (dead ? 1 : 0);
  const std::uint64_t stride = classes.count;
  const auto number = [&](StateID s) { return s == kDeadState ? trie : s.value; };

  // D: the deepest level such that it and every shallower one fit.
  std::vector<std::uint64_t> at_depth;
  for (const TrieState& st : states) {
    if (st.depth >= at_depth.size()) at_depth.resize(st.depth + 1);
    ++at_depth[st.depth];
  }
  std::uint32_t max_shallow = 0;
  std::uint64_t shallow_rows = at_depth[0];
  while (max_shallow + 1 < at_depth.size() &&
         DFA::table_bytes(shallow_rows + at_depth[max_shallow + 1], classes.count) <= dense_bytes) {
    shallow_rows += at_depth[++max_shallow];
  }

  // Which states get a flat row, and base(s) and diff(s) (the header's
  // recurrences) for the others, failure targets first.
  std::vector<char> flat(n);
  std::vector<std::vector<std::uint16_t>> diff(n);
  std::vector<std::uint32_t> base(n);
  std::uint64_t flat_rows = 0;
  if (dead) flat[trie] = 1, ++flat_rows;
  for (const StateID sid : nfa.bfs_order()) {
    const std::uint32_t s = sid.value;
    if (states[s].depth <= max_shallow) {
      flat[s] = 1;
      ++flat_rows;
      continue;
    }
    const std::uint32_t f = number(states[s].fail);
    auto& d = diff[s];
    for (const auto& [byte, target] : states[s].next) d.push_back(classes.of[byte]);
    if (flat[f]) {
      base[s] = f;
    } else {
      base[s] = base[f];
      d.insert(d.end(), diff[f].begin(), diff[f].end());
    }
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    if (sparse_words(d.size()) >= stride) {
      flat[s] = 1;
      ++flat_rows;
      std::vector<std::uint16_t>().swap(d);
    }
  }
  if (flat_rows * stride >= 0x80000000ull) return;

  // Ids (the header's layout) and row numbers: flat rows by offset, then
  // sparse rows in order.
  // Safety (the narrowing casts below): flat offsets are below 2^31 and
  // sparse ids below 2^32 (both checked before they are used), row numbers
  // are at most n, and classes at most 257.
  std::vector<std::uint32_t> id(n);
  std::vector<std::uint32_t> old_of;  // by row number
  old_of.reserve(n);
  const auto add_flat = [&](std::uint32_t s) {
    id[s] = static_cast<std::uint32_t>(old_of.size() * stride);
    old_of.push_back(s);
  };
  const auto has_matches = [&](std::uint32_t s) { return s < trie && !nfa.matches()[s].empty(); };
  for (std::uint32_t s = 0; s < trie; ++s) {
    if (flat[s] && !has_matches(s)) add_flat(s);
  }
  special_from_ = static_cast<std::uint32_t>(old_of.size() * stride);
  if (dead) {
    dead_ = special_from_;
    add_flat(trie);
  }
  match_from_ = static_cast<std::uint32_t>(old_of.size() * stride);
  for (std::uint32_t s = 0; s < trie; ++s) {
    if (flat[s] && has_matches(s)) add_flat(s);
  }
  sparse_from_ = static_cast<std::uint32_t>(old_of.size() * stride);
  std::uint64_t words = 0;
  for (const bool match : {true, false}) {
    for (std::uint32_t s = 0; s < trie; ++s) {
      if (!flat[s] && has_matches(s) == match) {
        id[s] = static_cast<std::uint32_t>(sparse_from_ + words);
        old_of.push_back(s);
        words += sparse_words(diff[s].size());
      }
    }
    if (match) {
      match_end_ = static_cast<std::uint32_t>(sparse_from_ + words);
      end_match_row_ = static_cast<std::uint32_t>(old_of.size());
    }
    if (sparse_from_ + words > 0xFFFFFFFFull) return;
  }
  ok_ = true;

  matches_ = MatchLists(nfa, old_of);  // the dead state (`trie`): none
  depth_.resize(n);
  std::vector<std::uint32_t> row_of_old(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    row_of_old[old_of[r]] = r;
    if (old_of[r] != trie) depth_[r] = states[old_of[r]].depth;  // the dead state: 0
  }

  // Rows, breadth-first: a failure target's row (flat or sparse) is complete
  // before a state that reads it. The root's missing edges loop to the root;
  // the dead state stays dead.
  table_.assign(flat_rows * stride, 0);
  sparse_.assign(words, 0);
  if (dead) std::fill_n(table_.begin() + dead_, stride, dead_);
  for (const StateID sid : nfa.bfs_order()) {
    const std::uint32_t s = sid.value;
    const std::uint32_t fail = id[number(states[s].fail)];
    const auto entry = [&](std::uint32_t c) {
      const std::uint32_t child = nfa.child(sid, classes.representative[c]);
      if (child != 0xFFFFFFFFu) return id[child];
      return s == 0 ? 0 : step(fail, c);
    };
    if (flat[s]) {
      for (std::uint32_t c = 0; c < classes.count; ++c) table_[id[s] + c] = entry(c);
      continue;
    }
    std::uint32_t* row = &sparse_[id[s] - sparse_from_];
    row[0] = id[base[s]];
    row[1] = static_cast<std::uint32_t>(diff[s].size());
    row[2] = row_of_old[s];
    for (std::size_t k = 0; k < diff[s].size(); ++k) {
      row[3 + 2 * k] = diff[s][k];
      row[4 + 2 * k] = entry(diff[s][k]);
    }
  }
}

std::size_t HybridDFA::memory_bytes() const {
  return sizeof(*this) + table_.capacity() * 4 + sparse_.capacity() * 4 + matches_.memory_bytes() +
         depth_.capacity() * 4;
}

}  // namespace herald::match::detail
