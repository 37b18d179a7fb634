#include "match/detail/leftmost_dfa.hpp"

namespace herald::match::detail {

LeftmostDFA::LeftmostDFA(const std::vector<std::string>& folded, MatchKind kind,
                         const ByteClasses& classes)
    : dfa_(NoncontiguousNFA(folded, kind == MatchKind::LeftmostFirst
                                        ? NoncontiguousNFA::Trie::LeftmostFirst
                                        : NoncontiguousNFA::Trie::LeftmostLongest),
           classes) {
  if (!dfa_.ok()) return;
  first_match_row_ = dfa_.first_match_row();
  const auto rows = static_cast<std::uint32_t>(dfa_.state_count());
  candidates_.reserve(rows - first_match_row_);
  for (std::uint32_t r = first_match_row_; r < rows; ++r) {
    const PatternID id = dfa_.matches(dfa_.state_at_row(r)).front();
    // Safety: a keyword is at most kMaxKeywordBytes long.
    candidates_.push_back({id, static_cast<std::uint32_t>(folded[id.value].size())});
  }
}

}  // namespace herald::match::detail
