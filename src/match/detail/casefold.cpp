// Simple case folding, written by hand from Unicode's CaseFolding.txt
// (statuses C and S; F and T are multi-code-point or Turkic and excluded by
// definition of *simple* folding) for the blocks of kFoldCoverage
// (casefold.hpp). tests/match/casefold_oracle_test.cpp compares every code
// point with the file itself.
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
constexpr std::array<Rule, 100> kRules{{
    {0x0041, 0x005A, 32, 1},     // A-Z
    {0x00B5, 0x00B5, 775, 1},    // MICRO SIGN -> GREEK SMALL MU
    {0x00C0, 0x00D6, 32, 1},     // À-Ö
    {0x00D8, 0x00DE, 32, 1},     // Ø-Þ
    {0x0100, 0x012E, 1, 2},      // Ā ā ... Į į
    {0x0132, 0x0136, 1, 2},      // Ĳ ... Ķ
    {0x0139, 0x0147, 1, 2},      // Ĺ ... Ň
    {0x014A, 0x0176, 1, 2},      // Ŋ ... Ŷ
    {0x0178, 0x0178, -121, 1},   // Ÿ -> ÿ
    {0x0179, 0x017D, 1, 2},      // Ź ... Ž
    {0x017F, 0x017F, -268, 1},   // LONG S -> s
    {0x0181, 0x0181, 210, 1},    // Ɓ -> ɓ
    {0x0182, 0x0184, 1, 2},      // Ƃ Ƅ
    {0x0186, 0x0186, 206, 1},    // Ɔ -> ɔ
    {0x0187, 0x0187, 1, 1},      // Ƈ
    {0x0189, 0x018A, 205, 1},    // Ɖ Ɗ -> ɖ ɗ
    {0x018B, 0x018B, 1, 1},      // Ƌ
    {0x018E, 0x018E, 79, 1},     // Ǝ -> ǝ
    {0x018F, 0x018F, 202, 1},    // Ə -> ə
    {0x0190, 0x0190, 203, 1},    // Ɛ -> ɛ
    {0x0191, 0x0191, 1, 1},      // Ƒ
    {0x0193, 0x0193, 205, 1},    // Ɠ -> ɠ
    {0x0194, 0x0194, 207, 1},    // Ɣ -> ɣ
    {0x0196, 0x0196, 211, 1},    // Ɩ -> ɩ
    {0x0197, 0x0197, 209, 1},    // Ɨ -> ɨ
    {0x0198, 0x0198, 1, 1},      // Ƙ
    {0x019C, 0x019C, 211, 1},    // Ɯ -> ɯ
    {0x019D, 0x019D, 213, 1},    // Ɲ -> ɲ
    {0x019F, 0x019F, 214, 1},    // Ɵ -> ɵ
    {0x01A0, 0x01A4, 1, 2},      // Ơ Ƣ Ƥ
    {0x01A6, 0x01A6, 218, 1},    // Ʀ -> ʀ
    {0x01A7, 0x01A7, 1, 1},      // Ƨ
    {0x01A9, 0x01A9, 218, 1},    // Ʃ -> ʃ
    {0x01AC, 0x01AC, 1, 1},      // Ƭ
    {0x01AE, 0x01AE, 218, 1},    // Ʈ -> ʈ
    {0x01AF, 0x01AF, 1, 1},      // Ư
    {0x01B1, 0x01B2, 217, 1},    // Ʊ Ʋ -> ʊ ʋ
    {0x01B3, 0x01B5, 1, 2},      // Ƴ Ƶ
    {0x01B7, 0x01B7, 219, 1},    // Ʒ -> ʒ
    {0x01B8, 0x01B8, 1, 1},      // Ƹ
    {0x01BC, 0x01BC, 1, 1},      // Ƽ
    {0x01C4, 0x01C4, 2, 1},      // Ǆ -> ǆ
    {0x01C5, 0x01C5, 1, 1},      // ǅ -> ǆ
    {0x01C7, 0x01C7, 2, 1},      // Ǉ -> ǉ
    {0x01C8, 0x01C8, 1, 1},      // ǈ -> ǉ
    {0x01CA, 0x01CA, 2, 1},      // Ǌ -> ǌ
    {0x01CB, 0x01DB, 1, 2},      // ǋ ... Ǜ
    {0x01DE, 0x01EE, 1, 2},      // Ǟ ... Ǯ
    {0x01F1, 0x01F1, 2, 1},      // Ǳ -> ǳ
    {0x01F2, 0x01F4, 1, 2},      // ǲ Ǵ
    {0x01F6, 0x01F6, -97, 1},    // Ƕ -> ƕ
    {0x01F7, 0x01F7, -56, 1},    // Ƿ -> ƿ
    {0x01F8, 0x021E, 1, 2},      // Ǹ ... Ȟ
    {0x0220, 0x0220, -130, 1},   // Ƞ -> ƞ
    {0x0222, 0x0232, 1, 2},      // Ȣ ... Ȳ
    {0x023A, 0x023A, 10795, 1},  // Ⱥ -> ⱥ (3 bytes from 2)
    {0x023B, 0x023B, 1, 1},      // Ȼ
    {0x023D, 0x023D, -163, 1},   // Ƚ -> ƚ
    {0x023E, 0x023E, 10792, 1},  // Ⱦ -> ⱦ (3 bytes from 2)
    {0x0241, 0x0241, 1, 1},      // Ɂ
    {0x0243, 0x0243, -195, 1},   // Ƀ -> ƀ
    {0x0244, 0x0244, 69, 1},     // Ʉ -> ʉ
    {0x0245, 0x0245, 71, 1},     // Ʌ -> ʌ
    {0x0246, 0x024E, 1, 2},      // Ɇ ... Ɏ
    {0x0345, 0x0345, 116, 1},    // COMBINING YPOGEGRAMMENI -> ι
    {0x0370, 0x0372, 1, 2},      // Ͱ Ͳ
    {0x0376, 0x0376, 1, 1},      // Ͷ
    {0x037F, 0x037F, 116, 1},    // Ϳ -> ϳ
    {0x0386, 0x0386, 38, 1},     // Ά -> ά
    {0x0388, 0x038A, 37, 1},     // Έ Ή Ί
    {0x038C, 0x038C, 64, 1},     // Ό -> ό
    {0x038E, 0x038F, 63, 1},     // Ύ Ώ
    {0x0391, 0x03A1, 32, 1},     // Α-Ρ
    {0x03A3, 0x03AB, 32, 1},     // Σ-Ϋ
    {0x03C2, 0x03C2, 1, 1},      // final ς -> σ
    {0x03CF, 0x03CF, 8, 1},      // Ϗ -> ϗ
    {0x03D0, 0x03D0, -30, 1},    // ϐ -> β
    {0x03D1, 0x03D1, -25, 1},    // ϑ -> θ
    {0x03D5, 0x03D5, -15, 1},    // ϕ -> φ
    {0x03D6, 0x03D6, -22, 1},    // ϖ -> π
    {0x03D8, 0x03EE, 1, 2},      // Ϙ ... Ϯ
    {0x03F0, 0x03F0, -54, 1},    // ϰ -> κ
    {0x03F1, 0x03F1, -48, 1},    // ϱ -> ρ
    {0x03F4, 0x03F4, -60, 1},    // ϴ -> θ
    {0x03F5, 0x03F5, -64, 1},    // ϵ -> ε
    {0x03F7, 0x03F7, 1, 1},      // Ϸ
    {0x03F9, 0x03F9, -7, 1},     // Ϲ -> ϲ
    {0x03FA, 0x03FA, 1, 1},      // Ϻ
    {0x03FD, 0x03FF, -130, 1},   // Ͻ Ͼ Ͽ -> ͻ ͼ ͽ
    {0x0400, 0x040F, 80, 1},     // Ѐ-Џ
    {0x0410, 0x042F, 32, 1},     // А-Я
    {0x0460, 0x0480, 1, 2},      // Ѡ ... Ҁ
    {0x048A, 0x04BE, 1, 2},      // Ҋ ... Ҿ
    {0x04C0, 0x04C0, 15, 1},     // Ӏ -> ӏ
    {0x04C1, 0x04CD, 1, 2},      // Ӂ ... Ӎ
    {0x04D0, 0x052E, 1, 2},      // Ӑ ... Ԯ
    {0x0531, 0x0556, 48, 1},     // Armenian Ա-Ֆ
    {0x1E00, 0x1E94, 1, 2},      // Latin Extended Additional Ḁ ... Ẕ
    {0x1E9B, 0x1E9B, -58, 1},    // ẛ -> ṡ
    {0x1EA0, 0x1EFE, 1, 2},      // Ạ ... Ỿ
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
    case 0x2132:
      return 0x214E;  // TURNED CAPITAL F -> ⅎ
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
