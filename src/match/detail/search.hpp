// The scan loops, written once for every automaton (ContiguousNFA, DFA: any
// type with start/next/is_match/matches/depth). Two ways of feeding bytes:
//
// * byte mode (CaseFold None and Ascii): the text's bytes go straight to the
//   automaton; ASCII folding is already inside its byte classes. A match of
//   pattern p ending after byte i starts at i + 1 - bytes(p).
// * Unicode mode: each unit is decoded, folded and re-encoded into a 4-byte
//   scratch buffer that is fed instead (ASCII bytes skip the decoder). Folded
//   lengths differ from original ones (KELVIN SIGN is 3 bytes, k is 1), so a
//   match start is found by code points: folding maps one code point to one,
//   so pattern p spans units(p) units, and a ring of the last 256 unit
//   offsets (kMaxKeywordBytes bounds units(p)) gives the start. Matches line
//   up with units: a keyword is valid UTF-8, so its first byte is a lead byte
//   and every lead byte of the fed stream begins a unit (utf8.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "match/detail/casefold.hpp"
#include "match/detail/noncontiguous.hpp"
#include "match/detail/prefilter.hpp"
#include "match/detail/utf8.hpp"
#include "match/detail/word.hpp"
#include "match/ids.hpp"
#include "match/options.hpp"

namespace herald::match::detail {

struct Found {
  PatternID pattern;
  std::size_t start;
  std::size_t end;
};

struct ScanSpec {
  const std::vector<PatternInfo>* patterns;
  MatchKind kind;
  bool unicode;
  bool whole_word;
  const StartPrefilter* prefilter;  // byte mode only; may be disabled
};

struct FedUnit {
  std::size_t text_bytes;   // the unit's length in the text
  std::uint32_t fed_bytes;  // bytes given to the automaton (its folded encoding)
};

// Unicode mode's step: decodes the unit at text[i], folds it and feeds its
// encoding to the automaton (ASCII skips the decoder; an invalid byte is fed
// as itself, one unit).
template <class A>
FedUnit feed_unit(const A& a, typename A::State& s, std::string_view text, std::size_t i) {
  // Safety: unsigned view of one byte of the text.
  const auto b = static_cast<std::uint8_t>(text[i]);
  if (b < 0x80) {
    s = a.next(s, fold_ascii(b));
    return {1, 1};
  }
  const Unit unit = decode(text, i);
  if (unit.cp == kInvalid) {
    s = a.next(s, b);
    return {unit.len, 1};
  }
  std::uint8_t buf[4];
  const std::uint32_t n = encode(fold_simple(unit.cp), buf);
  for (std::uint32_t k = 0; k < n; ++k) s = a.next(s, buf[k]);
  return {unit.len, n};
}

// Calls sink(Found) for every occurrence that ends in (from, to], scanning
// text[from, to) (from must be a unit start in Unicode mode), in the order:
// end ascending, then longest first, then pattern id. Stops early when sink
// returns false; returns false then.
template <class A, class Sink>
bool scan_overlapping(const A& a, const ScanSpec& spec, std::string_view text, std::size_t from,
                      std::size_t to, Sink&& sink) {
  // Safety: the text's chars reinterpreted as unsigned bytes; same object.
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto& pats = *spec.patterns;
  if (!spec.unicode) {
    // A state of its own, never addressed: the Unicode path passes its state
    // by reference (feed_unit), and one variable for both kept this loop's
    // state in memory, a store every byte. K1 (Speed, 1,000 keywords, find
    // into a reused buffer) under callgrind: 7,028 -> 6,399 instructions a
    // find.
    // One loop per prefilter mode (kSkip a constant in each), so neither
    // loop tests the mode per byte. K1 under callgrind: 6,398 -> 6,182
    // instructions a find.
    const auto walk = [&]<bool kSkip>() {
      typename A::State s = a.start();
      for (std::size_t i = from; i < to; ++i) {
        // In the start state only a start byte can lead anywhere: jump to it.
        if (kSkip && s == a.start()) {
          i = spec.prefilter->next(p, i, to);
          if (i == to) break;
        }
        s = a.next(s, p[i]);
        if (a.is_match(s)) [[unlikely]] {
          for (const PatternID id : a.matches(s)) {
            const std::size_t end = i + 1;
            const std::size_t start = end - pats[id.value].bytes;
            if (spec.whole_word && !is_whole_word(text, start, end)) continue;
            if (!sink(Found{id, start, end})) return false;
          }
        }
      }
      return true;
    };
    return spec.prefilter->enabled() ? walk.template operator()<true>()
                                     : walk.template operator()<false>();
  }
  typename A::State s = a.start();
  std::array<std::size_t, 256> ring;  // offsets of the last 256 units
  std::uint64_t u = 0;                // index of the current unit
  for (std::size_t i = from; i < to;) {
    ring[u & 255] = i;
    i += feed_unit(a, s, text, i).text_bytes;
    if (a.is_match(s)) [[unlikely]] {
      for (const PatternID id : a.matches(s)) {
        const std::size_t start = ring[(u + 1 - pats[id.value].units) & 255];
        if (spec.whole_word && !is_whole_word(text, start, i)) continue;
        if (!sink(Found{id, start, i})) return false;
      }
    }
    ++u;
  }
  return true;
}

// How the lanes' hot loop treats matches (scan_overlapping_lanes below and
// leftmost_lanes in leftmost_search.hpp). A lane meets a match state (and,
// in a leftmost scan, the dead state) at places the branch predictor cannot
// guess.
// * Branching tests "any lane at a match" once a step and handles each such
//   lane in a branch: nothing extra per byte, but where matches are dense
//   the test comes true at most steps, and its branches mispredicted 3.6
//   times a match (callgrind's branch simulator, K2 English 10,000 words,
//   leftmost-first).
// * Selecting writes each lane's state and position to a buffer every step
//   and keeps the entry (advances the lane's count) only where it reports:
//   at a match state in an overlapping scan; in a leftmost one, at the dead
//   state, the only branch left, once a match, while the candidate (state
//   and end) is taken with conditional moves. The buffers are reported
//   after each block of steps, so the loop keeps its lanes in registers. It
//   pays a few instructions every step.
// K2, one round of each build alternated three times (herald over the peer):
// where matches are dense Selecting wins (English 10,000 words, a match
// every 5 bytes: leftmost-first 1.25-1.36x -> 1.73-1.89x the crate,
// leftmost-longest 1.40-1.51x -> 1.76-1.91x, overlapping 1.09-1.28x ->
// 1.90-2.03x Hyperscan; Korean 100,000, one every 4 to 10 bytes:
// leftmost-first 1.68-1.79x -> 1.91-2.10x, overlapping 0.74-0.96x ->
// 0.97-1.04x); where they are rare it loses (English 1,000, one every 250
// bytes, leftmost-first: 2.98-3.11x -> 2.50-2.72x; Korean 1,000:
// 3.58-3.67x -> 2.76-2.84x).
enum class LaneLoop { Branching, Selecting };

// Which loop each block of a long text takes: Selecting after a block with
// at least one match per kDenseMatchBytes bytes, Branching otherwise and for
// the first block. 16 lies between Korean 100,000 words' 10, where Selecting
// won, and Korean 10,000 words' 38, where the two were within the noise, or
// Selecting a little behind.
inline constexpr std::size_t kDenseMatchBytes = 16;

// Selecting's buffers hold this many steps of every lane before they are
// reported (at most one entry a step per lane).
inline constexpr std::size_t kSelectingBlockSteps = 256;

// How many lanes walk a text: kLanes, or kWideLanes where the table is
// large (kWideLanesTableBytes) and matches are dense (the Selecting loop).
// Such a walk visits deep states, whose rows are out of cache, so each step
// waits on memory and more walks keep more loads in flight. Where the walk
// stays in cached rows (a small table, or rare matches, which keep it near
// the start state) the step's instructions count, and sixteen lanes do not
// fit in registers. Measured in the header of scan_overlapping_lanes.
inline constexpr std::size_t kLanes = 8;
// The `GCC unroll`s of the lane loops (below, and in leftmost_search.hpp)
// say 16: a count of eight unrolls fully under it too.
inline constexpr std::size_t kWideLanes = 16;
// Between the K2 tables of 10,000 words (11-13 MB: eight and sixteen lanes
// level) and of 100,000 (24-31 MB: sixteen ahead).
inline constexpr std::size_t kWideLanesTableBytes = std::size_t{16} << 20;

// The loop and lane count of each block of a long text.
class LaneLoopChoice {
 public:
  // `memory_bytes`: the built automaton's (Stats::memory_bytes), of which
  // the transition table is nearly all.
  explicit LaneLoopChoice(std::size_t memory_bytes)
      : large_table_(memory_bytes >= kWideLanesTableBytes) {}
  // Calls scan.template operator()<kLoop, kLaneCount>() with this block's
  // loop and lane count.
  template <class Scan>
  void run(Scan&& scan) const {
    if (!dense_) {
      scan.template operator()<LaneLoop::Branching, kLanes>();
    } else if (large_table_) {
      scan.template operator()<LaneLoop::Selecting, kWideLanes>();
    } else {
      scan.template operator()<LaneLoop::Selecting, kLanes>();
    }
  }
  // The block just scanned: `bytes` long, `matches` reported in it.
  void after(std::size_t matches, std::size_t bytes) {
    dense_ = matches * kDenseMatchBytes >= bytes;
  }

 private:
  bool large_table_;
  bool dense_ = false;
};

// The same overlapping scan in byte mode with kLaneCount independent walks of
// the automaton in lockstep. One walk is a chain of dependent loads (each
// step's address is the previous step's result), so it runs at the latency
// of the table's cache level; several chains let the core overlap their
// loads. Worth it for the DFA only: the NFA's failure loops branch per lane
// and measured slower (K2 English, 1,000 words, dev-2c, 2026-11-30, MB/s
// plain -> four lanes: DFA 173 -> 489-648, Balanced 78 -> 60,
// MemoryEfficient 61 -> 49). Six lanes measured 684 then, eight 399 (the
// states no longer stayed in registers), and four were kept. Since the
// Selecting loop, eight measured ahead or level on every K2 row (2026-12-03,
// the two builds alternated two to four times, herald over the peer, four
// lanes -> eight: English 1,000 words overlapping 1.25-1.69x -> 1.33-2.00x
// Hyperscan, English 100,000 leftmost-first 1.24-1.46x -> 1.54-1.71x the
// crate, Korean 10,000 overlapping 0.91-1.07x -> 0.92-1.41x, Korean
// 100,000 overlapping 0.97-1.21x -> 1.08-1.26x; English 10,000 leftmost
// level: four 1.50-2.02x, eight 1.34-1.93x). A large table's steps wait on
// memory, and eight walks keep more loads in flight. Sixteen lanes
// (kWideLanes) on every block against eight, the whole K2 table twice, each
// build one round, herald over the peer (2026-12-03; the procedure is in
// docs/benchmarks.md, "Sixteen lanes over the 100,000-word tables"): where the table is 24-31 MB
// (100,000 words), ahead (English overlapping 2.26/2.25x -> 2.40/2.64x
// Hyperscan, leftmost-first 1.61/1.42x -> 1.83/1.70x the crate; Korean
// overlapping 1.20/1.21x -> 1.32/1.33x Hyperscan); at 10,000 words (11-13
// MB) level (English leftmost-first 1.94/1.85x -> 1.97/1.85x); at 1,000
// words (1.4 MB, a match every 250 bytes) far behind (English overlapping
// 2.07/2.02x -> 1.16/0.84x Hyperscan). Hence LaneLoopChoice.
//
// The caller scans text[from, to) with states valid from `origin` (<= from):
// [from, to) is cut into kLaneCount chunks [c_k, c_k+1). Lane k starts in the
// start state at max(origin, c_k - max_match) and reports only occurrences
// that end in (c_k, c_k+1]: an occurrence spans at most max_match bytes, so
// all of it lies inside the lane's walk and the state there agrees with a
// walk from `origin` as far as matches are concerned (find_parallel's
// argument). Each occurrence ends in exactly one chunk, so lanes report
// disjoint sets; sink(lane, Found) receives each lane's in scan_overlapping's
// order, interleaved across lanes (the caller concatenates lanes in order).
// Byte mode only (chunks are not aligned to code points).
// Texts shorter than this take one walk: the lanes' warm-up (max_match bytes
// each) and set-up cost more than they save.
inline constexpr std::size_t kLanesMinBytes = 4096;
// Longer texts are scanned in blocks of this size, so the per-lane buffers
// the caller keeps hold one block's matches, not the whole text's.
inline constexpr std::size_t kLanesBlockBytes = 64u << 10;

template <LaneLoop kLoop, std::size_t kLaneCount, class A, class Sink>
void scan_overlapping_lanes(const A& a, const ScanSpec& spec, std::string_view text,
                            std::size_t origin, std::size_t from, std::size_t to,
                            std::size_t max_match, Sink&& sink) {
  // Safety: unsigned view of the same bytes.
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto& pats = *spec.patterns;
  std::array<std::size_t, kLaneCount + 1> cut;
  std::array<std::size_t, kLaneCount> pos;  // first byte each lane reads
  for (std::size_t k = 0; k <= kLaneCount; ++k) cut[k] = from + (to - from) * k / kLaneCount;
  for (std::size_t k = 0; k < kLaneCount; ++k) {
    pos[k] = cut[k] - std::min(cut[k] - origin, max_match);
  }
  std::array<typename A::State, kLaneCount> s;
  s.fill(a.start());
  // Reports lane k's matches at state st after reading byte i.
  const auto report = [&](std::size_t k, typename A::State st, std::size_t i) {
    const std::size_t end = i + 1;
    if (end <= cut[k]) return;  // warm-up: the chunk before owns it
    for (const PatternID id : a.matches(st)) {
      const std::size_t start = end - pats[id.value].bytes;
      if (spec.whole_word && !is_whole_word(text, start, end)) continue;
      sink(k, Found{id, start, end});
    }
  };
  std::size_t common = to;
  for (std::size_t k = 0; k < kLaneCount; ++k) common = std::min(common, cut[k + 1] - pos[k]);
  if constexpr (kLoop == LaneLoop::Branching) {
    for (std::size_t j = 0; j < common; ++j) {
      bool any = false;
#pragma GCC unroll 16
      for (std::size_t k = 0; k < kLaneCount; ++k) {
        s[k] = a.next(s[k], p[pos[k] + j]);
        any |= a.is_match(s[k]);
      }
      // One branch for all lanes, well predicted where matches are rare.
      if (any) [[unlikely]] {
        for (std::size_t k = 0; k < kLaneCount; ++k) {
          if (a.is_match(s[k])) report(k, s[k], pos[k] + j);
        }
      }
    }
  } else {
    // Every step writes each lane's state and step to its buffer and keeps
    // it (advances the count) only at a match state; the buffers are
    // reported after each block of kSelectingBlockSteps steps.
    constexpr std::size_t kBlockSteps = kSelectingBlockSteps;
    struct Hit {
      typename A::State state;
      std::uint32_t step;  // j - j0
    };
    std::array<std::array<Hit, kBlockSteps>, kLaneCount> hits;
    for (std::size_t j0 = 0; j0 < common; j0 += kBlockSteps) {
      const std::size_t steps = std::min(kBlockSteps, common - j0);
      std::array<std::uint32_t, kLaneCount> count{};
      for (std::size_t t = 0; t < steps; ++t) {
#pragma GCC unroll 16
        for (std::size_t k = 0; k < kLaneCount; ++k) {
          s[k] = a.next(s[k], p[pos[k] + j0 + t]);
          // Safety: t < kBlockSteps.
          hits[k][count[k]] = Hit{s[k], static_cast<std::uint32_t>(t)};
          count[k] += a.is_match(s[k]) ? 1 : 0;
        }
      }
      for (std::size_t k = 0; k < kLaneCount; ++k) {
        for (std::uint32_t h = 0; h < count[k]; ++h) {
          report(k, hits[k][h].state, pos[k] + j0 + hits[k][h].step);
        }
      }
    }
  }
  // Each lane finishes its own remainder (the warm-up difference, a few bytes).
  for (std::size_t k = 0; k < kLaneCount; ++k) {
    for (std::size_t i = pos[k] + common; i < cut[k + 1]; ++i) {
      s[k] = a.next(s[k], p[i]);
      if (a.is_match(s[k])) [[unlikely]]
        report(k, s[k], i);
    }
  }
}

// Whether candidate (start, fstart-length) beats the best so far at the same
// leftmost start, by the kind's preference.
inline bool prefer(MatchKind kind, const Found& c, std::uint32_t c_len, const Found& b,
                   std::uint32_t b_len) {
  if (c.start != b.start) return c.start < b.start;
  if (kind == MatchKind::LeftmostLongest && c_len != b_len) return c_len > b_len;
  return c.pattern < b.pattern;
}

// The leftmost match starting at or after `from` (a unit start in Unicode
// mode): the occurrence with the smallest start, ties broken by the kind.
// The scan stops as soon as no live thread can start at or before the best
// candidate: after a step, the current state is the longest suffix that is a
// keyword prefix, so every occurrence still to come starts at or after
// (position - depth(state)). Positions are compared in fed bytes, which are
// monotonic with text offsets.
template <class A>
std::optional<Found> leftmost_at(const A& a, const ScanSpec& spec, std::string_view text,
                                 std::size_t from) {
  // Safety: unsigned view of the same bytes.
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto& pats = *spec.patterns;
  const std::size_t n = text.size();
  std::optional<Found> best;
  std::uint64_t best_fstart = 0;  // start of best in fed bytes
  std::uint32_t best_len = 0;     // folded length of best
  if (!spec.unicode) {
    // In a register, as in scan_overlapping: K2 English leftmost-longest
    // (1,000, 10,000 and 100,000 words, three finds each) under callgrind,
    // 18.74 -> 18.22 billion instructions.
    typename A::State s = a.start();
    const bool skip = spec.prefilter->enabled();
    for (std::size_t i = from; i < n; ++i) {
      if (skip && !best && s == a.start()) {
        i = spec.prefilter->next(p, i, n);
        if (i == n) break;
      }
      s = a.next(s, p[i]);
      if (best && i + 1 - a.depth(s) > best->start) break;
      if (a.is_match(s)) [[unlikely]] {
        for (const PatternID id : a.matches(s)) {
          const std::uint32_t len = pats[id.value].bytes;
          const Found c{id, i + 1 - len, i + 1};
          if (spec.whole_word && !is_whole_word(text, c.start, c.end)) continue;
          if (!best || prefer(spec.kind, c, len, *best, best_len)) best = c, best_len = len;
        }
      }
    }
    return best;
  }
  typename A::State s = a.start();
  std::array<std::size_t, 256> ring;
  std::uint64_t u = 0;
  std::uint64_t fed = 0;  // bytes fed to the automaton so far
  for (std::size_t i = from; i < n;) {
    ring[u & 255] = i;
    const FedUnit f = feed_unit(a, s, text, i);
    i += f.text_bytes;
    fed += f.fed_bytes;
    if (best && fed - a.depth(s) > best_fstart) break;
    if (a.is_match(s)) [[unlikely]] {
      for (const PatternID id : a.matches(s)) {
        const PatternInfo& info = pats[id.value];
        const Found c{id, ring[(u + 1 - info.units) & 255], i};
        if (spec.whole_word && !is_whole_word(text, c.start, c.end)) continue;
        if (!best || prefer(spec.kind, c, info.bytes, *best, best_len)) {
          best = c, best_len = info.bytes, best_fstart = fed - info.bytes;
        }
      }
    }
    ++u;
  }
  return best;
}

}  // namespace herald::match::detail
