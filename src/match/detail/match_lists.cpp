#include "match/detail/match_lists.hpp"

#include <stdexcept>

namespace herald::match::detail {

MatchLists::MatchLists(const NoncontiguousNFA& nfa, std::span<const std::uint32_t> order) {
  const auto& lists = nfa.matches();
  begin_.reserve(order.size() + 1);
  for (const std::uint32_t s : order) {
    // Safety: ids_ holds fewer than 2^32 ids (checked below, list by list).
    begin_.push_back(static_cast<std::uint32_t>(ids_.size()));
    if (s < lists.size()) ids_.insert(ids_.end(), lists[s].begin(), lists[s].end());
    // Lists are complete (a keyword is in the list of every state it is a
    // suffix of), so a pathological dictionary could pass 2^32 ids: 16 GiB,
    // where memory runs out first; checked all the same.
    if (ids_.size() >= 0xFFFFFFFFu) throw std::length_error("match lists past 2^32 ids");
  }
  begin_.push_back(static_cast<std::uint32_t>(ids_.size()));
  // Exact sizes: memory_bytes() reports what the automaton holds.
  ids_.shrink_to_fit();
}

}  // namespace herald::match::detail
