#include "match/store/compiled.hpp"

#include <algorithm>

namespace herald::match::store {

Options search_options() {
  return Options{.kind = MatchKind::LeftmostLongest, .fold = CaseFold::Unicode};
}

Compiled::Compiled(std::uint64_t version, std::vector<Entry> entries, Matcher matcher)
    : version_(version), entries_(std::move(entries)), matcher_(std::move(matcher)) {}

herald::Result<std::shared_ptr<const Compiled>, std::string> Compiled::build(
    std::uint64_t version, std::vector<Entry> entries, const Options& options) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.keyword < b.keyword; });
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const Entry& a, const Entry& b) { return a.keyword == b.keyword; }),
                entries.end());
  std::vector<std::string_view> keywords;
  keywords.reserve(entries.size());
  for (const Entry& e : entries) keywords.push_back(e.keyword);
  auto m = Matcher::try_build(std::span<const std::string_view>(keywords), options);
  if (!m) return std::string(error_message(m.error()));
  return std::shared_ptr<const Compiled>(new Compiled(version, std::move(entries), std::move(*m)));
}

void Compiled::find(std::string_view text, std::vector<Hit>& out) const {
  out.clear();
  thread_local std::vector<Match> matches;  // reused: no allocation per search when warm
  matcher_.find(text, matches);
  for (const Match& m : matches) {
    const Entry& e = entries_[m.pattern.value];
    out.push_back(Hit{e.keyword, e.action, e.category, m.start, m.end});
  }
}

std::string Compiled::mask(std::string_view text) const {
  return matcher_.mask(text);
}

}  // namespace herald::match::store
