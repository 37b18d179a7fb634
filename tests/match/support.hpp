// Shared helpers: every engine setting, printing matches, random inputs.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "match/matcher.hpp"

namespace herald::match::testing {

inline constexpr Preset kPresets[] = {Preset::Speed, Preset::Balanced, Preset::MemoryEfficient,
                                      Preset::Auto};
inline constexpr MatchKind kKinds[] = {MatchKind::Overlapping, MatchKind::LeftmostFirst,
                                       MatchKind::LeftmostLongest};
inline constexpr CaseFold kFolds[] = {CaseFold::None, CaseFold::Ascii, CaseFold::Unicode};

// Every preset x kind x fold x whole-word combination (72), and Speed's
// again with a table budget of 0, so that every state but the root has a
// sparse row (18 more).
std::vector<Options> all_options();
std::string describe(const Options& o);
std::string describe(const std::vector<Match>& ms);

// Random text over a small alphabet of pieces (ASCII, mixed case, Greek,
// Cyrillic, Hangul, a space, a digit and invalid bytes; a letter whose
// folded form is longer (Ⱥ, ⱥ), a kana word character and an Arabic
// punctuation mark; a surrogate's encoding), so that random keywords drawn
// from the same pieces actually occur.
std::string random_text(std::mt19937_64& rng, std::size_t pieces);

// The UTF-8 form of a code point (not a surrogate), written here rather than
// taken from detail::encode so that the oracle tests build their text
// without the engine's code.
std::string utf8(std::uint32_t cp);

}  // namespace herald::match::testing
