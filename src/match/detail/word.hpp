// Word characters for whole-word matching: in the blocks of kWordBlocks,
// exactly the code points Unicode (UnicodeData.txt, 15.0) calls a letter
// (L*), a decimal digit (Nd) or a combining mark that does not enclose (Mn,
// Mc); no code point outside those blocks. A match is whole-word when the
// unit before its start and the unit after its end are not word characters
// (the start or end of the text counts as a boundary). Invalid bytes are not
// word characters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "match/detail/unicode_block.hpp"

namespace herald::match::detail {

// The scripts Herald's users write in, whole blocks. One list, so the claim
// is checked code point by code point against UnicodeData.txt
// (tests/match/word_oracle_test.cpp) and docs/match.md can say it.
inline constexpr std::array<UnicodeBlock, 27> kWordBlocks{{
    {0x0000, 0x007F, "Basic Latin"},
    {0x0080, 0x00FF, "Latin-1 Supplement"},
    {0x0100, 0x017F, "Latin Extended-A"},
    {0x0180, 0x024F, "Latin Extended-B"},
    {0x0250, 0x02AF, "IPA Extensions"},
    {0x02B0, 0x02FF, "Spacing Modifier Letters"},
    {0x0300, 0x036F, "Combining Diacritical Marks"},
    {0x0370, 0x03FF, "Greek and Coptic"},
    {0x0400, 0x04FF, "Cyrillic"},
    {0x0500, 0x052F, "Cyrillic Supplement"},
    {0x0530, 0x058F, "Armenian"},
    {0x0590, 0x05FF, "Hebrew"},
    {0x0600, 0x06FF, "Arabic"},
    {0x0900, 0x097F, "Devanagari"},
    {0x0E00, 0x0E7F, "Thai"},
    {0x10A0, 0x10FF, "Georgian"},
    {0x1100, 0x11FF, "Hangul Jamo"},
    {0x1E00, 0x1EFF, "Latin Extended Additional"},
    {0x1F00, 0x1FFF, "Greek Extended"},
    {0x3040, 0x309F, "Hiragana"},
    {0x30A0, 0x30FF, "Katakana"},
    {0x3130, 0x318F, "Hangul Compatibility Jamo"},
    {0x3400, 0x4DBF, "CJK Unified Ideographs Extension A"},
    {0x4E00, 0x9FFF, "CJK Unified Ideographs"},
    {0xAC00, 0xD7AF, "Hangul Syllables"},
    {0xF900, 0xFAFF, "CJK Compatibility Ideographs"},
    {0xFF00, 0xFFEF, "Halfwidth and Fullwidth Forms"},
}};

[[nodiscard]] bool is_word_cp(std::uint32_t cp);

[[nodiscard]] bool is_whole_word(std::string_view text, std::size_t start, std::size_t end);

}  // namespace herald::match::detail
