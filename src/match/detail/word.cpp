// Word characters by block ranges: letters (L*), decimal digits (Nd) and
// combining marks (Mn/Mc) of the scripts Herald's users write in. This is a
// hand-written approximation of the General Category, exact for ASCII, Latin,
// Greek, Cyrillic, Hangul and kana, coarse (whole blocks) for the rest.
#include "match/detail/word.hpp"

#include <array>

#include "match/detail/utf8.hpp"

namespace herald::match::detail {
namespace {

struct Range {
  std::uint32_t first;
  std::uint32_t last;
};

// Sorted, non-overlapping.
constexpr std::array<Range, 45> kWord{{
    {0x0030, 0x0039}, {0x0041, 0x005A}, {0x0061, 0x007A}, {0x00AA, 0x00AA}, {0x00B5, 0x00B5},
    {0x00BA, 0x00BA}, {0x00C0, 0x00D6}, {0x00D8, 0x00F6}, {0x00F8, 0x02C1}, {0x02C6, 0x02D1},
    {0x02E0, 0x02E4}, {0x0300, 0x0374}, {0x0376, 0x0377}, {0x037A, 0x037D}, {0x037F, 0x037F},
    {0x0386, 0x0386}, {0x0388, 0x03F5}, {0x03F7, 0x0481}, {0x0483, 0x052F}, {0x0531, 0x0556},
    {0x0561, 0x0587}, {0x05B0, 0x05EA}, {0x0610, 0x06D3}, {0x06F0, 0x06FF}, {0x0900, 0x0963},
    {0x0966, 0x096F}, {0x0E01, 0x0E3A}, {0x0E40, 0x0E59}, {0x10A0, 0x10FF}, {0x1100, 0x11FF},
    {0x1E00, 0x1FBC}, {0x1FC2, 0x1FCC}, {0x1FD0, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FFC},
    {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x3131, 0x318E}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
    {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFF10, 0xFF19}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A},
}};

}  // namespace

bool is_word_cp(std::uint32_t cp) {
  if (cp == kInvalid) return false;
  std::size_t lo = 0;
  std::size_t hi = kWord.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (kWord[mid].first <= cp) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo > 0 && cp <= kWord[lo - 1].last;
}

bool is_whole_word(std::string_view text, std::size_t start, std::size_t end) {
  if (start > 0 && is_word_cp(unit_before(text, start))) return false;
  if (end < text.size() && is_word_cp(decode(text, end).cp)) return false;
  return true;
}

}  // namespace herald::match::detail
