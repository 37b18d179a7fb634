// Table-driven corpus: named cases with hand-written expected matches, each
// run against every preset (and the naive reference), and then, under every
// other kind and option, against the naive reference. Case names must be
// unique (a test fails otherwise), so a failure message names one case.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "match/naive.hpp"
#include "support.hpp"

namespace herald::match {
namespace {

using testing::describe;

struct Expect {
  std::uint32_t id;
  std::size_t start;
  std::size_t end;
};

struct Case {
  const char* name;
  MatchKind kind;
  CaseFold fold;
  bool whole_word;
  std::vector<std::string> patterns;
  std::string haystack;
  std::vector<Expect> expected;
};

constexpr auto O = MatchKind::Overlapping;
constexpr auto LF = MatchKind::LeftmostFirst;
constexpr auto LL = MatchKind::LeftmostLongest;
constexpr auto EX = CaseFold::None;
constexpr auto AS = CaseFold::Ascii;
constexpr auto UN = CaseFold::Unicode;

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"basic-empty-haystack", O, EX, false, {"a"}, "", {}},
      {"basic-no-match", O, EX, false, {"abc"}, "abd ab bc", {}},
      {"basic-one", O, EX, false, {"a"}, "a", {{0, 0, 1}}},
      {"basic-repeat", O, EX, false, {"a"}, "aaa", {{0, 0, 1}, {0, 1, 2}, {0, 2, 3}}},
      {"basic-two", O, EX, false, {"ab", "cd"}, "xabcdx", {{0, 1, 3}, {1, 3, 5}}},
      {"overlap-a-aa-aaa",
       O,
       EX,
       false,
       {"a", "aa", "aaa"},
       "aaa",
       {{0, 0, 1}, {1, 0, 2}, {0, 1, 2}, {2, 0, 3}, {1, 1, 3}, {0, 2, 3}}},
      {"overlap-shared-suffix",
       O,
       EX,
       false,
       {"she", "he", "hers", "his"},
       "ushers",
       {{0, 1, 4}, {1, 2, 4}, {2, 2, 6}}},
      {"overlap-duplicates", O, EX, false, {"ab", "ab"}, "ab", {{0, 0, 2}, {1, 0, 2}}},
      {"overlap-nested",
       O,
       EX,
       false,
       {"abcd", "bc", "c"},
       "abcd",
       {{1, 1, 3}, {2, 2, 3}, {0, 0, 4}}},
      {"overlap-failure-chain",
       O,
       EX,
       false,
       {"abcde", "bcd", "cdx"},
       "abcdx",
       {{1, 1, 4}, {2, 2, 5}}},
      {"leftmost-first-prefers-first", LF, EX, false, {"abcd", "ab"}, "abcd", {{0, 0, 4}}},
      {"leftmost-first-shadowed", LF, EX, false, {"ab", "abcd"}, "abcd", {{0, 0, 2}}},
      {"leftmost-first-samwise", LF, EX, false, {"Sam", "Samwise"}, "Samwise", {{0, 0, 3}}},
      {"leftmost-longest-samwise", LL, EX, false, {"Sam", "Samwise"}, "Samwise", {{1, 0, 7}}},
      {"leftmost-earlier-start-wins", LF, EX, false, {"bcd", "abcde"}, "abcdef", {{1, 0, 5}}},
      {"leftmost-first-later-short", LF, EX, false, {"abcdef", "bc"}, "abcdex", {{1, 1, 3}}},
      {"leftmost-longest-a-aa-aaa",
       LL,
       EX,
       false,
       {"a", "aa", "aaa"},
       "aaaa",
       {{2, 0, 3}, {0, 3, 4}}},
      {"leftmost-first-a-aa-aaa",
       LF,
       EX,
       false,
       {"a", "aa", "aaa"},
       "aaaa",
       {{0, 0, 1}, {0, 1, 2}, {0, 2, 3}, {0, 3, 4}}},
      {"leftmost-nonoverlapping", LL, EX, false, {"aba"}, "ababa", {{0, 0, 3}}},
      {"leftmost-duplicates-first-id", LL, EX, false, {"ab", "ab"}, "ab", {{0, 0, 2}}},
      {"leftmost-gives-up-longer", LL, EX, false, {"abcx", "bcd"}, "abcd", {{1, 1, 4}}},
      {"ascii-fold", O, AS, false, {"Hello"}, "hELLO HeLLo", {{0, 0, 5}, {0, 6, 11}}},
      {"ascii-fold-not-unicode", O, AS, false, {"é"}, "É é", {{0, 3, 5}}},
      {"exact-case", O, EX, false, {"Hello"}, "hello Hello", {{0, 6, 11}}},
      {"unicode-fold-latin", O, UN, false, {"café"}, "CAFÉ Café", {{0, 0, 5}, {0, 6, 11}}},
      {"unicode-fold-greek-sigma", O, UN, false, {"σοφία"}, "ΣΟΦΊΑ", {{0, 0, 10}}},
      {"unicode-fold-final-sigma",
       O,
       UN,
       false,
       {"λόγος"},
       "ΛΌΓΟΣ λόγοσ",
       {{0, 0, 10}, {0, 11, 21}}},
      {"unicode-fold-cyrillic",
       O,
       UN,
       false,
       {"привет"},
       "ПРИВЕТ Привет",
       {{0, 0, 12}, {0, 13, 25}}},
      {"unicode-fold-kelvin", O, UN, false, {"kg"}, "5 \xE2\x84\xAAG", {{0, 2, 6}}},
      {"unicode-fold-long-s", LL, UN, false, {"ss"}, "\xC5\xBFS", {{0, 0, 3}}},
      {"unicode-hangul", O, UN, false, {"한국"}, "대한국민 한국어", {{0, 3, 9}, {0, 13, 19}}},
      {"unicode-invalid-bytes-in-text",
       O,
       UN,
       false,
       {"ab"},
       "\xFF"
       "AB\xC3"
       "ab",
       {{0, 1, 3}, {0, 4, 6}}},
      {"exact-invalid-keyword", O, EX, false, {"\xC3"}, "\xC3\xA9\xC3", {{0, 0, 1}, {0, 2, 3}}},
      {"word-ascii", O, EX, true, {"cat"}, "cat concat cats cat.", {{0, 0, 3}, {0, 16, 19}}},
      {"word-digits", O, EX, true, {"42"}, "42 142 x42 42", {{0, 0, 2}, {0, 11, 13}}},
      {"word-unicode-letters", O, UN, true, {"кот"}, "котик кот Кот,", {{0, 11, 17}, {0, 18, 24}}},
      {"word-hangul", O, EX, true, {"한국"}, "한국어 한국 ", {{0, 10, 16}}},
      {"word-leftmost-skips-inner", LL, EX, true, {"ab", "abc"}, "abc ab", {{1, 0, 3}, {0, 4, 6}}},
      {"word-leftmost-falls-back", LL, EX, true, {"a b", "b c"}, "xa b c", {{1, 3, 6}}},
      {"word-underscore-is-boundary", O, EX, true, {"id"}, "_id_", {{0, 1, 3}}},
  };
  return kCases;
}

TEST(MatchCases, NamesAreUnique) {
  std::set<std::string> names;
  for (const Case& c : cases()) EXPECT_TRUE(names.insert(c.name).second) << "duplicate: " << c.name;
}

TEST(MatchCases, EveryPresetGivesTheExpectedMatches) {
  for (const Case& c : cases()) {
    std::vector<Match> want;
    for (const Expect& e : c.expected) want.push_back({PatternID{e.id}, e.start, e.end});
    for (const Preset p : testing::kPresets) {
      const Options o{p, c.kind, c.fold, c.whole_word};
      auto m = Matcher::try_build(std::span<const std::string>(c.patterns), o);
      ASSERT_TRUE(m.ok()) << c.name;
      EXPECT_EQ(describe(m->find(c.haystack)), describe(want)) << c.name << ' ' << describe(o);
    }
    const NaiveMatcher naive(c.patterns, Options{Preset::Auto, c.kind, c.fold, c.whole_word});
    EXPECT_EQ(describe(naive.find(c.haystack)), describe(want)) << c.name << " (naive)";
  }
}

// The same corpus under every other setting, against the reference.
TEST(MatchCases, EverySettingAgreesWithNaiveOnTheCorpus) {
  std::size_t compared = 0;
  for (const Case& c : cases()) {
    for (const Options& o : testing::all_options()) {
      auto m = Matcher::try_build(std::span<const std::string>(c.patterns), o);
      if (!m.ok()) {
        // Only Unicode folding rejects keywords (invalid UTF-8).
        EXPECT_EQ(m.error(), Error::kInvalidUtf8Keyword) << c.name;
        continue;
      }
      const NaiveMatcher naive(c.patterns, o);
      EXPECT_EQ(describe(m->find(c.haystack)), describe(naive.find(c.haystack)))
          << c.name << ' ' << describe(o);
      ++compared;
    }
  }
  EXPECT_GT(compared, cases().size() * 60);
}

}  // namespace
}  // namespace herald::match
