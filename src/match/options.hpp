// Build options and errors of the match engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace herald::match {

// Which automaton answers searches. Auto picks by dictionary size (see
// choose_preset in matcher.cpp).
enum class Preset : std::uint8_t { Auto, Speed, Balanced, MemoryEfficient };

// Overlapping: every occurrence of every keyword, ordered by end offset, then
// longest first, then by pattern id. Leftmost kinds: non-overlapping matches
// chosen left to right; at the leftmost start, LeftmostFirst prefers the
// keyword given first to the builder, LeftmostLongest the longest one.
enum class MatchKind : std::uint8_t { Overlapping, LeftmostFirst, LeftmostLongest };

// None: bytes compare exactly. Ascii: A-Z equal a-z. Unicode: simple case
// folding (one code point to one code point) for Latin, Greek, Cyrillic,
// Armenian and a few signs; see detail/casefold.cpp for the exact coverage.
enum class CaseFold : std::uint8_t { None, Ascii, Unicode };

// The options' names on command lines ("speed", "leftmost-first", "ascii"),
// one spelling for `herald match` and the benchmarks; nullopt for any other.
constexpr std::optional<Preset> preset_named(std::string_view n) {
  if (n == "auto") return Preset::Auto;
  if (n == "speed") return Preset::Speed;
  if (n == "balanced") return Preset::Balanced;
  if (n == "memory") return Preset::MemoryEfficient;
  return std::nullopt;
}
constexpr std::optional<MatchKind> kind_named(std::string_view n) {
  if (n == "overlapping") return MatchKind::Overlapping;
  if (n == "leftmost-first") return MatchKind::LeftmostFirst;
  if (n == "leftmost-longest") return MatchKind::LeftmostLongest;
  return std::nullopt;
}
constexpr std::optional<CaseFold> fold_named(std::string_view n) {
  if (n == "none") return CaseFold::None;
  if (n == "ascii") return CaseFold::Ascii;
  if (n == "unicode") return CaseFold::Unicode;
  return std::nullopt;
}

struct Options {
  Preset preset = Preset::Auto;
  MatchKind kind = MatchKind::Overlapping;
  CaseFold fold = CaseFold::None;
  // A match counts only if the code point before it and the one after it
  // are not letters, digits or combining marks (detail/word.cpp).
  bool whole_word = false;
  // Searches of long texts (4 KiB and more) by the Speed preset without
  // Unicode folding walk the automaton in interleaved lanes, one a chunk:
  // eight, or sixteen over a table of 16 MiB or more where matches are dense
  // (detail::LaneLoopChoice). Overlapping (detail/search.hpp), and the
  // leftmost kinds without whole words (detail/leftmost_search.hpp). Results
  // are identical; false
  // keeps the single plain walk, the twin that tests and benchmarks compare
  // against.
  bool interleave = true;
  // The Speed preset's table budget. A DFA whose flat table (a row of one
  // 4-byte entry per byte class for every state) fits keeps it; a larger one
  // keeps flat rows for its shallow states, as deep as fit in this many
  // bytes, and sparse rows for the deeper ones (detail/hybrid_dfa.hpp).
  // 30 MiB keeps every dictionary of 10,000 words flat, and the 28.8 MB
  // table of 100,000 English words under leftmost-first, where sparse rows
  // for its deepest 17% of states measured 0.85-0.94x as fast; it holds
  // 100,000 English words in 30 MB instead of 70 under the other kinds.
  // SIZE_MAX keeps every table flat: the plain twin.
  std::size_t dense_table_bytes = std::size_t{30} << 20;
};

// Limits. A keyword is at most 256 bytes so that every keyword spans at most
// 256 code points, the size of the ring of code-point offsets used by the
// Unicode-folding scan (detail/search.hpp).
inline constexpr std::size_t kMaxKeywordBytes = 256;
inline constexpr std::size_t kMaxKeywords = 1'000'000;
inline constexpr std::size_t kMaxDictionaryBytes = 64u << 20;

enum class Error : std::uint8_t {
  kOk = 0,
  kEmptyKeyword,
  kKeywordTooLong,
  kTooManyKeywords,
  kDictionaryTooLarge,
  kInvalidUtf8Keyword,  // only with CaseFold::Unicode
  kAutomatonTooLarge,   // the Speed DFA's table would exceed 2^31 entries
};

[[nodiscard]] std::string_view error_message(Error e);

}  // namespace herald::match
