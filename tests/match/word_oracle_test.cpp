// Word characters checked against Unicode's own UnicodeData.txt (Debian's
// unicode-data), every code point: inside the blocks of detail::kWordBlocks a
// code point is a word character exactly when its General Category is a
// letter (L*), a decimal digit (Nd) or a non-enclosing combining mark (Mn,
// Mc); outside them none is. Then the whole-word filter, through every
// preset, on each script's letters and punctuation.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "match/detail/word.hpp"
#include "match/matcher.hpp"
#include "support.hpp"

namespace herald::match {
namespace {

// General Category of every assigned code point. A range is given as two
// lines, "<...,First>" and "<...,Last>" (CJK, Hangul syllables).
const std::map<std::uint32_t, std::string>& categories() {
  static const std::map<std::uint32_t, std::string> table = [] {
    std::map<std::uint32_t, std::string> t;
    std::ifstream in(HERALD_UNICODE_DATA_TXT);
    std::string line;
    std::uint32_t first = 0;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string code, name, category;
      if (!std::getline(fields, code, ';') || !std::getline(fields, name, ';') ||
          !std::getline(fields, category, ';')) {
        continue;
      }
      // Safety: hexadecimal code points of at most six digits fit 32 bits.
      const auto cp = static_cast<std::uint32_t>(std::stoul(code, nullptr, 16));
      if (name.ends_with(", First>")) {
        first = cp;
        continue;
      }
      if (!name.ends_with(", Last>")) first = cp;
      for (std::uint32_t c = first; c <= cp; ++c) t[c] = category;
    }
    return t;
  }();
  return table;
}

bool in_blocks(std::uint32_t cp) {
  return detail::in_blocks(detail::kWordBlocks, cp);
}

// What the engine claims for a code point.
bool claimed_word(std::uint32_t cp) {
  if (!in_blocks(cp)) return false;
  auto it = categories().find(cp);
  if (it == categories().end()) return false;  // unassigned
  const std::string& gc = it->second;
  return gc[0] == 'L' || gc == "Nd" || gc == "Mn" || gc == "Mc";
}

TEST(WordOracle, TheFileIsRead) {
  const auto& t = categories();
  EXPECT_GT(t.size(), 100000u) << HERALD_UNICODE_DATA_TXT;
  EXPECT_EQ(t.count('A') ? t.at('A') : "", "Lu");
  EXPECT_EQ(t.count(0xAC01) ? t.at(0xAC01) : "", "Lo");  // inside a First/Last range
}

TEST(WordOracle, EveryCodePointIsAWordCharacterAsClaimed) {
  std::size_t wrong = 0;
  for (std::uint32_t cp = 0; cp <= 0x10FFFF && wrong < 20; ++cp) {
    if (detail::is_word_cp(cp) != claimed_word(cp)) {
      ++wrong;
      auto it = categories().find(cp);
      ADD_FAILURE() << std::hex << "U+" << cp << " ("
                    << (it == categories().end() ? "Cn" : it->second)
                    << (in_blocks(cp) ? "" : ", outside the blocks") << ") is "
                    << (detail::is_word_cp(cp) ? "" : "not ") << "a word character";
    }
  }
}

// Through the matchers: a keyword between two units is a whole word exactly
// when neither neighbour is a word character. Neighbours from the letters,
// marks and punctuation of several scripts.
TEST(WordOracle, WholeWordFollowsTheCategories) {
  const std::vector<std::uint32_t> neighbours = {
      '.',    'x',    '7',    0x02EC, 0x0488, 0x0559, 0x05BE, 0x05D0, 0x061F,
      0x0620, 0x0964, 0x0966, 0x0E2F, 0x0E4F, 0x1FBE, 0x1FBD, 0x3099, 0x30FC,
      0x30FB, 0xFF70, 0xFF65, 0x3000, 0x2014, 0xA000, 0x0F40};
  const std::vector<std::string> keywords{"kw"};
  for (const Preset p : testing::kPresets) {
    const Options o{p, MatchKind::LeftmostLongest, CaseFold::Unicode, true};
    const Matcher m = Matcher::build(keywords, o);
    for (const std::uint32_t before : neighbours) {
      for (const std::uint32_t after : {std::uint32_t{' '}, std::uint32_t{'y'}}) {
        const std::string text = testing::utf8(before) + "kw" + testing::utf8(after);
        const bool want = !claimed_word(before) && !claimed_word(after);
        EXPECT_EQ(!m.find(text).empty(), want)
            << testing::describe(o) << std::hex << " U+" << before << " kw U+" << after;
      }
    }
  }
}

}  // namespace
}  // namespace herald::match
