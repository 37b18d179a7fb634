// Unicode simple case folding (CaseFolding.txt statuses C and S) for the
// blocks of kFoldCoverage. A code point outside them folds to itself.
#pragma once

#include <array>
#include <cstdint>

#include "match/detail/unicode_block.hpp"

namespace herald::match::detail {

// The blocks fold_simple covers, whole (Blocks.txt's ranges and names).
// Inside them a code point folds exactly as CaseFolding.txt's C and S
// entries say; outside them every code point folds to itself, cased or not
// (Greek Extended, Georgian, Cherokee, Glagolitic, Latin Extended-C/D/E,
// Deseret and the other cased scripts are not covered). One list, so the
// claim is checked code point by code point against Unicode's own file
// (tests/match/casefold_oracle_test.cpp) and docs/match.md can say it.
inline constexpr std::array<UnicodeBlock, 12> kFoldCoverage{{
    {0x0000, 0x007F, "Basic Latin"},
    {0x0080, 0x00FF, "Latin-1 Supplement"},
    {0x0100, 0x017F, "Latin Extended-A"},
    {0x0180, 0x024F, "Latin Extended-B"},
    {0x0300, 0x036F, "Combining Diacritical Marks"},
    {0x0370, 0x03FF, "Greek and Coptic"},
    {0x0400, 0x04FF, "Cyrillic"},
    {0x0500, 0x052F, "Cyrillic Supplement"},
    {0x0530, 0x058F, "Armenian"},
    {0x1E00, 0x1EFF, "Latin Extended Additional"},
    {0x2100, 0x214F, "Letterlike Symbols"},
    {0xFF00, 0xFFEF, "Halfwidth and Fullwidth Forms"},
}};

[[nodiscard]] std::uint32_t fold_simple(std::uint32_t cp);

[[nodiscard]] inline std::uint8_t fold_ascii(std::uint8_t b) {
  return (b >= 'A' && b <= 'Z') ? static_cast<std::uint8_t>(b + 32) : b;
}

}  // namespace herald::match::detail
