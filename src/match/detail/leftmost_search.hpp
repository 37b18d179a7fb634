// The scans of the leftmost automaton (leftmost_dfa.hpp), byte mode only:
// one walk that finds the next leftmost match, and the same walk in several
// interleaved lanes over consecutive chunks of a long text.
//
// A walk starts in the start state, remembers the candidate of the last
// match state it passes and stops at the dead state, where that candidate
// is final; the next walk starts at its end. The dead state is only ever
// reached after a candidate (the automaton fails to it from match paths
// only), and after a candidate the walk never returns to the start state.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "match/detail/leftmost_dfa.hpp"
#include "match/detail/search.hpp"

namespace herald::match::detail {

// leftmost_at's answer (the leftmost match starting at or after `from`) in
// byte mode without whole words.
template <class A>
std::optional<Found> leftmost_find_at(const A& a, const ScanSpec& spec, std::string_view text,
                                      std::size_t from) {
  // Safety: unsigned view of the same bytes.
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::size_t n = text.size();
  const bool skip = spec.prefilter->enabled();
  typename A::State s = a.start();
  typename A::Candidate c;
  std::size_t end = 0;  // the candidate's end; 0 while there is none (a match is never empty)
  for (std::size_t i = from; i < n; ++i) {
    // The start state with no candidate: no keyword has begun.
    if (skip && s == a.start() && end == 0) {
      i = spec.prefilter->next(p, i, n);
      if (i == n) break;
    }
    s = a.next(s, p[i]);
    if (a.is_special(s)) [[unlikely]] {
      if (a.is_dead(s)) break;
      c = a.candidate(s);
      end = i + 1;
    }
  }
  if (end == 0) return std::nullopt;
  return Found{c.id, end - c.bytes, end};
}

// The greedy chains of kLaneCount walks, interleaved as in
// scan_overlapping_lanes (one walk is a chain of dependent loads; several
// let the core overlap them). Lane k starts at cut[k] in the start state and
// reports through sink(k, Found), in order, the matches that successive
// walks from there find, as long as they start before cut[k + 1]; it may
// read past cut[k + 1] to finish a match. Lane k's chain is find's only
// from where the two first meet: the caller stitches (Matcher's
// append_chunk_chain, the same step find_parallel takes between threads).
//
// The lanes step together while every lane is inside its chunk; a match
// found there starts inside the chunk, so it is reported without a check.
// A lane that restarts after a match moves back to the match's end and so
// gains room; when the lane with the least room reaches its chunk's end,
// each lane finishes its chain alone.
template <LaneLoop kLoop, std::size_t kLaneCount, class A, class Sink>
void leftmost_lanes(const A& a, std::string_view text,
                    const std::array<std::size_t, kLaneCount + 1>& cut, Sink&& sink) {
  using State = typename A::State;
  // Safety: unsigned view of the same bytes.
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::size_t n = text.size();
  std::array<State, kLaneCount> s;
  std::array<std::size_t, kLaneCount> pos;    // the next byte each lane reads
  std::array<std::size_t, kLaneCount> end{};  // the candidate's end, 0 if none
  std::array<State, kLaneCount> cand{};       // the candidate's match state
  s.fill(a.start());
  for (std::size_t k = 0; k < kLaneCount; ++k) pos[k] = cut[k];
  // Lane k's candidate (match state cs, ending at e) is final: report it.
  const auto report = [&](std::size_t k, State cs, std::size_t e) {
    const auto c = a.candidate(cs);
    sink(k, Found{c.id, e - c.bytes, e});
  };
  // Selecting's reports, held for a block of kSelectingBlockSteps steps (a
  // lane reaches the dead state at most once a step).
  struct Pending {
    State cand;
    std::size_t end;
  };
  constexpr std::size_t kBlockSteps = kLoop == LaneLoop::Selecting ? kSelectingBlockSteps : 0;
  std::array<std::array<Pending, kBlockSteps>, kLaneCount> pending;
  for (;;) {
    std::size_t steps = n;
    for (std::size_t k = 0; k < kLaneCount; ++k) steps = std::min(steps, cut[k + 1] - pos[k]);
    if (steps == 0) break;
    // The hot loops step copies that no lambda captures, so they stay in
    // registers: stepping s and pos themselves, which a lambda captured,
    // measured 409 MB/s against 1,125 on K2 English 1,000 words. For the
    // same reason their match paths are written out.
    std::array<State, kLaneCount> ls = s;
    std::array<std::size_t, kLaneCount> lp = pos;
    std::array<std::size_t, kLaneCount> le = end;
    std::array<State, kLaneCount> lc = cand;
    if constexpr (kLoop == LaneLoop::Branching) {
      for (std::size_t t = 0; t < steps; ++t) {
        bool any = false;
#pragma GCC unroll 16
        for (std::size_t k = 0; k < kLaneCount; ++k) {
          ls[k] = a.next(ls[k], p[lp[k]++]);
          any |= a.is_special(ls[k]);
        }
        if (any) [[unlikely]] {
#pragma GCC unroll 16
          for (std::size_t k = 0; k < kLaneCount; ++k) {
            if (!a.is_special(ls[k])) continue;
            if (!a.is_dead(ls[k])) {
              lc[k] = ls[k];
              le[k] = lp[k];
              continue;
            }
            const auto c = a.candidate(lc[k]);
            sink(k, Found{c.id, le[k] - c.bytes, le[k]});
            ls[k] = a.start();
            lp[k] = le[k];
            le[k] = 0;
          }
        }
      }
    } else {
      std::array<std::uint32_t, kLaneCount> count{};
      const std::size_t block = std::min(steps, kBlockSteps);
      for (std::size_t t = 0; t < block; ++t) {
#pragma GCC unroll 16
        for (std::size_t k = 0; k < kLaneCount; ++k) {
          ls[k] = a.next(ls[k], p[lp[k]++]);
          const bool match = a.is_match(ls[k]);
          lc[k] = match ? ls[k] : lc[k];
          le[k] = match ? lp[k] : le[k];
          if (a.is_dead(ls[k])) {
            pending[k][count[k]++] = Pending{lc[k], le[k]};
            ls[k] = a.start();
            lp[k] = le[k];
            le[k] = 0;
          }
        }
      }
      for (std::size_t k = 0; k < kLaneCount; ++k) {
        for (std::uint32_t i = 0; i < count[k]; ++i)
          report(k, pending[k][i].cand, pending[k][i].end);
      }
    }
    s = ls;
    pos = lp;
    end = le;
    cand = lc;
  }
  for (std::size_t k = 0; k < kLaneCount; ++k) {
    const std::size_t limit = cut[k + 1];
    for (;;) {
      // Nothing pending and nothing begun: every later match starts here or after.
      if (end[k] == 0 && s[k] == a.start() && pos[k] >= limit) break;
      // The text's end makes a candidate final, as the dead state does.
      if (pos[k] < n) {
        s[k] = a.next(s[k], p[pos[k]++]);
        if (!a.is_special(s[k])) [[likely]]
          continue;
        if (!a.is_dead(s[k])) {
          cand[k] = s[k];
          end[k] = pos[k];
          continue;
        }
      }
      // A final candidate starting at or after the limit ends the chain (so
      // does the text's end with none).
      if (end[k] == 0) break;
      const auto c = a.candidate(cand[k]);
      if (end[k] - c.bytes >= limit) break;
      sink(k, Found{c.id, end[k] - c.bytes, end[k]});
      s[k] = a.start();
      pos[k] = end[k];
      end[k] = 0;
    }
  }
}

}  // namespace herald::match::detail
