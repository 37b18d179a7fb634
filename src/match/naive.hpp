// The reference matcher: the obvious algorithm, written independently of the
// automata so that tests and the fuzzer can compare every engine setting to
// it. It compares every keyword at every position (units in Unicode mode),
// filters whole words, then orders (overlapping) or selects greedily
// (leftmost kinds). Quadratic; for tests, fuzzing and as the benchmark floor.
// It shares no code with the engines' UTF-8 units, case folding or word
// boundaries (naive.cpp has its own, written differently), so a bug in
// those shows up as a difference instead of agreeing with itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "match/matcher.hpp"

namespace herald::match {

// The naive matcher's simple case folding of one code point: a table of
// CaseFolding.txt's pairs for the blocks the engines cover
// (detail::kFoldCoverage), independent of detail::fold_simple.
[[nodiscard]] std::uint32_t naive_fold(std::uint32_t cp);

class NaiveMatcher {
 public:
  // Keywords must satisfy the same limits as Matcher::try_build; the caller
  // checks (tests build both from the same list).
  NaiveMatcher(std::vector<std::string> keywords, Options options);
  [[nodiscard]] std::vector<Match> find(std::string_view text) const;

 private:
  std::vector<std::string> keywords_;
  std::vector<std::u32string> folded_units_;  // Unicode mode only
  Options options_;
};

}  // namespace herald::match
