// find_parallel: the text is cut into chunks at unit starts; each thread
// searches its chunk with access to the whole text (so look-back, look-ahead
// and word boundaries see the real neighbours), then the chunk results are
// stitched so the output equals find's.
//
// Overlapping: the thread for chunk [a, b) scans from a - max_match_bytes
// (aligned to a unit start) to b and keeps the occurrences ending in (a, b].
// Every occurrence ends in exactly one chunk, and the state reached at any
// position >= a is the same as a scan from 0 would reach as far as matches
// are concerned: all that a match needs is the last max_match_bytes bytes.
//
// Leftmost: each thread runs the greedy chain from a, keeping matches that
// start before b. The true chain may enter the chunk at a later position p
// (the end of the previous chunk's last match). Stitching
// (append_chunk_chain, which find's interleaved lanes use too) re-searches
// from p until it produces a match that the thread's chain also contains;
// from there the two chains are the same sequence (each step depends only
// on where it starts), so the rest of the thread's chain is taken as is.
#include <algorithm>
#include <thread>

#include "match/matcher.hpp"

namespace herald::match {

std::vector<Match> Matcher::find_parallel(std::string_view text, unsigned threads,
                                          std::size_t min_chunk) const {
  threads = std::max(1u, threads);
  const std::size_t want = std::max<std::size_t>(
      1, std::min<std::size_t>(threads, text.size() / std::max<std::size_t>(min_chunk, 1)));
  if (want <= 1) return find(text);
  // Chunk boundaries at unit starts, strictly increasing.
  std::vector<std::size_t> cut{0};
  for (std::size_t k = 1; k < want; ++k) {
    const std::size_t c = align(text, text.size() * k / want);
    if (c > cut.back() && c < text.size()) cut.push_back(c);
  }
  cut.push_back(text.size());
  const std::size_t chunks = cut.size() - 1;
  std::vector<std::vector<Match>> part(chunks);
  const bool overlapping = options().kind == MatchKind::Overlapping;
  const auto work = [&](std::size_t i) {
    const std::size_t a = cut[i];
    const std::size_t b = cut[i + 1];
    if (overlapping) {
      const std::size_t back = a > max_match_bytes() ? a - max_match_bytes() : 0;
      overlapping_into(text, align(text, back), b, a, part[i]);
      return;
    }
    std::size_t pos = a;
    Match m;
    while (pos < text.size() && leftmost_at(text, pos, m) && m.start < b) {
      part[i].push_back(m);
      pos = m.end;
    }
  };
  {
    std::vector<std::jthread> pool;
    for (std::size_t i = 1; i < chunks; ++i) pool.emplace_back(work, i);
    work(0);
  }  // jthreads join here
  std::vector<Match> out;
  for (std::size_t i = 0; i < chunks; ++i) {
    if (overlapping) {
      out.insert(out.end(), part[i].begin(), part[i].end());
    } else {
      append_chunk_chain(text, cut[i], cut[i + 1], part[i], out);
    }
  }
  return out;
}

void Matcher::append_chunk_chain(std::string_view text, std::size_t chunk_start,
                                 std::size_t chunk_end, std::span<const Match> part,
                                 std::vector<Match>& out) const {
  const std::size_t prev_end = out.empty() ? 0 : out.back().end;
  if (prev_end <= chunk_start) {
    // Nothing starts in [prev_end, chunk_start): the chains are one.
    out.insert(out.end(), part.begin(), part.end());
    return;
  }
  // The previous chunk's last match reaches into this chunk: re-search.
  std::size_t pos = prev_end;
  Match m;
  while (pos < text.size() && leftmost_at(text, pos, m) && m.start < chunk_end) {
    const auto it = std::lower_bound(part.begin(), part.end(), m.start,
                                     [](const Match& x, std::size_t s) { return x.start < s; });
    if (it != part.end() && *it == m) {
      out.insert(out.end(), it, part.end());
      return;
    }
    out.push_back(m);
    pos = m.end;
  }
}

}  // namespace herald::match
