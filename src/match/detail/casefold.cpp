// Simple case folding, written by hand from Unicode's CaseFolding.txt
// (statuses C and S; F and T are multi-code-point or Turkic and excluded by
// definition of *simple* folding). Coverage: Basic Latin, Latin-1
// Supplement, Latin Extended-A, the regular runs of Latin Extended-B, Greek
// and Coptic, Cyrillic and Cyrillic Supplement, Armenian, Latin Extended
// Additional, the Ohm/Kelvin/Angstrom signs and fullwidth Latin. Hangul, CJK
// and kana have no case. Tests in tests/match/casefold_test.cpp pin one entry
// of each rule below.
#include "match/detail/casefold.hpp"

#include <array>
#include <cstdint>

namespace herald::match::detail {
namespace {

// Each rule maps [first, last] by adding `delta`; `step` 2 means only code
// points with the parity of `first` fold (alternating upper/lower pairs).
struct Rule {
  std::uint32_t first;
  std::uint32_t last;
  std::int32_t delta;
  std::uint32_t step;
};

// Sorted by `first`; ranges do not overlap.
constexpr std::array<Rule, 59> kRules{{
    {0x0041, 0x005A, 32, 1},    // A-Z
    {0x00B5, 0x00B5, 775, 1},   // MICRO SIGN -> GREEK SMALL MU
    {0x00C0, 0x00D6, 32, 1},    // À-Ö
    {0x00D8, 0x00DE, 32, 1},    // Ø-Þ
    {0x0100, 0x012E, 1, 2},     // Ā ā ... Į į
    {0x0132, 0x0136, 1, 2},     // Ĳ ... Ķ
    {0x0139, 0x0147, 1, 2},     // Ĺ ... Ň
    {0x014A, 0x0176, 1, 2},     // Ŋ ... Ŷ
    {0x0178, 0x0178, -121, 1},  // Ÿ -> ÿ
    {0x0179, 0x017D, 1, 2},     // Ź ... Ž
    {0x017F, 0x017F, -268, 1},  // LONG S -> s
    {0x01C4, 0x01C4, 2, 1},     // Ǆ -> ǆ
    {0x01C5, 0x01C5, 1, 1},     // ǅ -> ǆ
    {0x01C7, 0x01C7, 2, 1},     // Ǉ -> ǉ
    {0x01C8, 0x01C8, 1, 1},     // ǈ -> ǉ
    {0x01CA, 0x01CA, 2, 1},     // Ǌ -> ǌ
    {0x01CB, 0x01DB, 1, 2},     // ǋ ... Ǜ
    {0x01DE, 0x01EE, 1, 2},     // Ǟ ... Ǯ
    {0x01F1, 0x01F1, 2, 1},     // Ǳ -> ǳ
    {0x01F2, 0x01F2, 1, 1},     // ǲ -> ǳ
    {0x01F4, 0x01F4, 1, 1},     // Ǵ -> ǵ
    {0x01F8, 0x021E, 1, 2},     // Ǹ ... Ȟ
    {0x0222, 0x0232, 1, 2},     // Ȣ ... Ȳ
    {0x0345, 0x0345, 116, 1},   // COMBINING YPOGEGRAMMENI -> ι
    {0x0370, 0x0372, 1, 2},     // Ͱ Ͳ
    {0x0376, 0x0376, 1, 1},     // Ͷ
    {0x037F, 0x037F, 116, 1},   // Ϳ -> ϳ
    {0x0386, 0x0386, 38, 1},    // Ά -> ά
    {0x0388, 0x038A, 37, 1},    // Έ Ή Ί
    {0x038C, 0x038C, 64, 1},    // Ό -> ό
    {0x038E, 0x038F, 63, 1},    // Ύ Ώ
    {0x0391, 0x03A1, 32, 1},    // Α-Ρ
    {0x03A3, 0x03AB, 32, 1},    // Σ-Ϋ
    {0x03C2, 0x03C2, 1, 1},     // final ς -> σ
    {0x03CF, 0x03CF, 8, 1},     // Ϗ -> ϗ
    {0x03D0, 0x03D0, -30, 1},   // ϐ -> β
    {0x03D1, 0x03D1, -25, 1},   // ϑ -> θ
    {0x03D5, 0x03D5, -15, 1},   // ϕ -> φ
    {0x03D6, 0x03D6, -22, 1},   // ϖ -> π
    {0x03D8, 0x03EE, 1, 2},     // Ϙ ... Ϯ
    {0x03F0, 0x03F0, -54, 1},   // ϰ -> κ
    {0x03F1, 0x03F1, -48, 1},   // ϱ -> ρ
    {0x03F4, 0x03F4, -60, 1},   // ϴ -> θ
    {0x03F5, 0x03F5, -64, 1},   // ϵ -> ε
    {0x03F7, 0x03F7, 1, 1},     // Ϸ
    {0x03F9, 0x03F9, -7, 1},    // Ϲ -> ϲ
    {0x03FA, 0x03FA, 1, 1},     // Ϻ
    {0x03FD, 0x03FF, -130, 1},  // Ͻ Ͼ Ͽ -> ͻ ͼ ͽ
    {0x0400, 0x040F, 80, 1},    // Ѐ-Џ
    {0x0410, 0x042F, 32, 1},    // А-Я
    {0x0460, 0x0480, 1, 2},     // Ѡ ... Ҁ
    {0x048A, 0x04BE, 1, 2},     // Ҋ ... Ҿ
    {0x04C0, 0x04C0, 15, 1},    // Ӏ -> ӏ
    {0x04C1, 0x04CD, 1, 2},     // Ӂ ... Ӎ
    {0x04D0, 0x052E, 1, 2},     // Ӑ ... Ԯ
    {0x0531, 0x0556, 48, 1},    // Armenian Ա-Ֆ
    {0x1E00, 0x1E94, 1, 2},     // Latin Extended Additional Ḁ ... Ẕ
    {0x1E9B, 0x1E9B, -58, 1},   // ẛ -> ṡ
    {0x1EA0, 0x1EFE, 1, 2},     // Ạ ... Ỿ
}};

}  // namespace

std::uint32_t fold_simple(std::uint32_t cp) {
  if (cp < 0x80) return fold_ascii(static_cast<std::uint8_t>(cp));
  switch (cp) {  // isolated signs beyond the table's blocks
    case 0x1E9E:
      return 0x00DF;  // CAPITAL SHARP S -> ß (status S)
    case 0x2126:
      return 0x03C9;  // OHM SIGN -> ω
    case 0x212A:
      return 0x006B;  // KELVIN SIGN -> k
    case 0x212B:
      return 0x00E5;  // ANGSTROM SIGN -> å
    default:
      break;
  }
  if (cp >= 0xFF21 && cp <= 0xFF3A) return cp + 32;  // fullwidth Ａ-Ｚ
  // Binary search for the last rule with first <= cp; the table is sorted.
  std::size_t lo = 0;
  std::size_t hi = kRules.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (kRules[mid].first <= cp) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return cp;
  const Rule& r = kRules[lo - 1];
  if (cp > r.last || (cp - r.first) % r.step != 0) return cp;
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(cp) + r.delta);
}

}  // namespace herald::match::detail
