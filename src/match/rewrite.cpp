// mask() and replace(): find's matches, merged into disjoint spans, rewritten.
#include <algorithm>

#include "match/detail/utf8.hpp"
#include "match/matcher.hpp"

namespace herald::match {
namespace {

// find's spans sorted by start and merged where they overlap (only
// overlapping kind produces overlaps; leftmost matches are already disjoint).
std::vector<Match> merged_spans(const Matcher& m, std::string_view text) {
  std::vector<Match> spans = m.find(text);
  std::sort(spans.begin(), spans.end(),
            [](const Match& a, const Match& b) { return a.start < b.start; });
  std::vector<Match> out;
  for (const Match& s : spans) {
    if (!out.empty() && s.start < out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

std::string Matcher::mask(std::string_view text, std::string_view mask_with) const {
  std::string out;
  std::size_t pos = 0;
  for (const Match& s : merged_spans(*this, text)) {
    out.append(text.substr(pos, s.start - pos));
    // One mask per unit (code point, or lone invalid byte) of the span.
    for (std::size_t i = s.start; i < s.end; i += detail::decode(text, i).len) {
      out.append(mask_with);
    }
    pos = s.end;
  }
  out.append(text.substr(pos));
  return out;
}

std::string Matcher::replace(std::string_view text, std::string_view with) const {
  std::string out;
  std::size_t pos = 0;
  for (const Match& s : merged_spans(*this, text)) {
    out.append(text.substr(pos, s.start - pos));
    out.append(with);
    pos = s.end;
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace herald::match
