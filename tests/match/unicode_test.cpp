// UTF-8 units and word characters. Case folding is checked against
// Unicode's CaseFolding.txt in casefold_oracle_test.cpp.
#include <gtest/gtest.h>

#include "match/detail/utf8.hpp"
#include "match/detail/word.hpp"

namespace herald::match::detail {
namespace {

TEST(MatchUtf8, UnitsAndBoundaries) {
  const std::string_view t = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xC3(\xED\xA0\x80";
  EXPECT_EQ(decode(t, 0).len, 1u);
  EXPECT_EQ(decode(t, 1).cp, 0xE9u);
  EXPECT_EQ(decode(t, 3).cp, 0x20ACu);
  EXPECT_EQ(decode(t, 6).cp, 0x1F600u);
  EXPECT_EQ(decode(t, 10).cp, kInvalid);  // C3 followed by '('
  EXPECT_EQ(decode(t, 12).cp, kInvalid);  // surrogate ED A0 80
  EXPECT_TRUE(is_unit_start(t, 1));
  EXPECT_FALSE(is_unit_start(t, 2));
  EXPECT_TRUE(is_unit_start(t, 13));  // a lone continuation byte is a unit
  EXPECT_EQ(unit_before(t, 3), 0xE9u);
  EXPECT_EQ(count_units(t, 0, t.size()), 9u);     // a é € 😀 C3 ( ED A0 80
  EXPECT_EQ(decode("\xC0\x80", 0).cp, kInvalid);  // overlong
}

TEST(MatchWord, LettersDigitsAndMarks) {
  for (const std::uint32_t cp :
       {0x61u, 0x5Au, 0x37u, 0xE9u, 0x3A3u, 0x436u, 0xAC00u, 0x4E2Du, 0x301u, 0x3042u, 0x05D0u}) {
    EXPECT_TRUE(is_word_cp(cp)) << std::hex << cp;
  }
  for (const std::uint32_t cp : {0x20u, 0x2Eu, 0x5Fu, 0x2Du, 0xA0u, 0x3000u, 0x2014u, kInvalid}) {
    EXPECT_FALSE(is_word_cp(cp)) << std::hex << cp;
  }
  EXPECT_TRUE(is_whole_word("a cat.", 2, 5));
  EXPECT_FALSE(is_whole_word("ÉcatÉ", 2, 5));
  EXPECT_TRUE(
      is_whole_word("\xFF"
                    "cat"
                    "\xFF",
                    1, 4));
}

}  // namespace
}  // namespace herald::match::detail
