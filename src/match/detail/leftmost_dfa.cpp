#include "match/detail/leftmost_dfa.hpp"

namespace herald::match::detail {

NoncontiguousNFA leftmost_nfa(const std::vector<std::string>& folded, MatchKind kind) {
  return NoncontiguousNFA(folded, kind == MatchKind::LeftmostFirst
                                      ? NoncontiguousNFA::Trie::LeftmostFirst
                                      : NoncontiguousNFA::Trie::LeftmostLongest);
}

}  // namespace herald::match::detail
