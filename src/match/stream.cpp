// StreamSearcher: a window holds the tail of earlier chunks and the new one.
// Each round searches the window as if it were the text and emits only the
// matches no later byte can change; the window then drops what no future
// match can need. Let M = max_match_bytes() and W the window's end.
//
// * A match's whole-word check reads at most 4 bytes after its end, so an
//   overlapping match ending at e is final once e + 4 <= W.
// * A leftmost match starting at s is decided by the occurrences starting at
//   or before s, which end by s + M, plus their 4-byte look-ahead: final once
//   s + M + 4 <= W. If the search finds nothing, no match starts before
//   W - M - 4 (such a match would lie inside the window with its context).
// The window keeps M + 8 bytes before the next search start: look-back for
// matches and 4 bytes of look-behind for word boundaries and unit starts.
#include <algorithm>

#include "match/matcher.hpp"

namespace herald::match {

void StreamSearcher::feed(std::string_view chunk, std::vector<Match>& out) {
  window_.append(chunk);
  run(false, out);
}

void StreamSearcher::finish(std::vector<Match>& out) {
  run(true, out);
}

void StreamSearcher::run(bool eof, std::vector<Match>& out) {
  const std::string_view w(window_);
  const std::size_t end = base_ + w.size();
  const std::size_t m = m_.max_match_bytes();
  std::size_t keep_from;  // absolute offset of the first byte still needed
  if (m_.options().kind == MatchKind::Overlapping) {
    const std::size_t final_to = eof ? end : (end >= 4 ? end - 4 : 0);
    if (final_to > done_) {
      // Scan from the first unit start that can begin a match ending after
      // done_; the scan stops at the window's end, matches after final_to
      // are left for the next round.
      const std::size_t from = done_ + 1 > m + base_ ? done_ + 1 - m - base_ : 0;
      std::vector<Match> found;
      m_.overlapping_into(w, m_.align(w, from), w.size(), done_ - base_, found);
      for (Match x : found) {
        if (x.end + base_ > final_to) break;  // ends ascend
        x.start += base_, x.end += base_;
        out.push_back(x);
      }
      done_ = final_to;
    }
    keep_from = done_ > m + 8 ? done_ - m - 8 : 0;
  } else {
    for (;;) {
      Match x;
      const std::size_t from = resume_ - base_;
      if (from >= w.size() || !m_.leftmost_at(w, from, x)) {
        if (!eof) {
          const std::size_t safe = end > m + 4 ? end - m - 4 : 0;
          // Resume at a unit start: align within the window.
          if (safe > resume_) resume_ = base_ + m_.align(w, safe - base_);
        }
        break;
      }
      if (!eof && x.start + base_ + m + 4 > end) {
        // Not final. Nothing complete starts in [resume_, x.start), but an
        // occurrence cut off by the window's end may start before x.start
        // (at or after end - M): resume at the earlier of the two. (The
        // first version resumed at x.start; the fuzzer found the miss.)
        const std::size_t safe = end > m + 4 ? end - m - 4 : 0;
        const std::size_t to = std::min(x.start + base_, safe);
        if (to > resume_) resume_ = base_ + m_.align(w, to - base_);
        break;
      }
      x.start += base_, x.end += base_;
      out.push_back(x);
      resume_ = x.end;
    }
    keep_from = resume_ > 8 ? resume_ - 8 : 0;
  }
  if (eof) return;
  keep_from = std::max(keep_from, base_);
  window_.erase(0, keep_from - base_);
  base_ = keep_from;
}

}  // namespace herald::match
