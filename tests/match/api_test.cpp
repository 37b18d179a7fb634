// The search API beyond find: find_set, find_matches (code-point spans),
// contains, find_many, mask/replace, suggest, errors and stats.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "match/matcher.hpp"

namespace herald::match {
namespace {

Matcher make(std::vector<std::string> words, Options o = {}) {
  return Matcher::build(words, o);
}

TEST(MatchApi, FindSetListsEachKeywordOnceInOrderOfFirstOccurrence) {
  const auto m = make({"fox", "dog", "the"});
  std::vector<PatternID> out;
  m.find_set("the dog saw the fox and the dog", out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].value, 2u);
  EXPECT_EQ(out[1].value, 1u);
  EXPECT_EQ(out[2].value, 0u);
  m.find_set("nothing here", out);
  EXPECT_TRUE(out.empty());
}

TEST(MatchApi, FindMatchesGivesKeywordAndCodePointSpans) {
  const auto m = make({"한국", "Straße"}, Options{.fold = CaseFold::Unicode});
  std::vector<MatchDetail> out;
  m.find_matches("대한국 STRAßE", out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].keyword, "한국");
  EXPECT_EQ(out[0].start, 3u);
  EXPECT_EQ(out[0].end, 9u);
  EXPECT_EQ(out[0].cp_start, 1u);
  EXPECT_EQ(out[0].cp_end, 3u);
  EXPECT_EQ(out[1].keyword, "Straße");
  EXPECT_EQ(out[1].cp_start, 4u);
  EXPECT_EQ(out[1].cp_end, 10u);
}

TEST(MatchApi, CodePointOffsetsCountInvalidBytesAsOneUnitEach) {
  const auto m = make({"x"});
  std::vector<MatchDetail> out;
  m.find_matches("\xFF\xFE\xC3\xA9x", out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].start, 4u);
  EXPECT_EQ(out[0].cp_start, 3u);  // FF, FE, é
}

TEST(MatchApi, ContainsAndFindMany) {
  const auto m = make({"spam"}, Options{.fold = CaseFold::Ascii, .whole_word = true});
  EXPECT_TRUE(m.contains("buy SPAM now"));
  EXPECT_FALSE(m.contains("spammer"));
  const std::vector<std::string_view> texts = {"spam", "no", "spam spam"};
  const auto r = m.find_many(texts);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].size(), 1u);
  EXPECT_EQ(r[1].size(), 0u);
  EXPECT_EQ(r[2].size(), 2u);
}

TEST(MatchApi, MaskReplacesEachCodePointAndMergesOverlaps) {
  const auto m = make({"나쁜", "bad", "adx"});
  EXPECT_EQ(m.mask("a 나쁜 말"), "a ** 말");
  EXPECT_EQ(m.mask("badx!"), "****!");  // bad + adx overlap: one span
  EXPECT_EQ(m.mask("bad", "#"), "###");
  EXPECT_EQ(m.replace("so bad, so 나쁜", "[x]"), "so [x], so [x]");
  EXPECT_EQ(m.replace("clean", "[x]"), "clean");
}

TEST(MatchApi, SuggestByFoldedPrefix) {
  const auto m = make({"apple", "Apricot", "banana", "app"}, Options{.fold = CaseFold::Ascii});
  const auto s = m.suggest("AP");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(m.keyword(s[0]), "app");
  EXPECT_EQ(m.keyword(s[1]), "apple");
  EXPECT_EQ(m.keyword(s[2]), "Apricot");
  EXPECT_EQ(m.suggest("ap", 1).size(), 1u);
  EXPECT_TRUE(m.suggest("z").empty());
}

TEST(MatchApi, LimitsAreErrors) {
  const std::vector<std::string> empty = {"a", ""};
  EXPECT_EQ(Matcher::try_build(std::span<const std::string>(empty)).error(), Error::kEmptyKeyword);
  const std::vector<std::string> longk = {std::string(257, 'x')};
  EXPECT_EQ(Matcher::try_build(std::span<const std::string>(longk)).error(),
            Error::kKeywordTooLong);
  const std::vector<std::string> exact = {std::string(256, 'x')};
  EXPECT_TRUE(Matcher::try_build(std::span<const std::string>(exact)).ok());
  const std::vector<std::string> bad = {"\xC3"};
  EXPECT_EQ(
      Matcher::try_build(std::span<const std::string>(bad), {.fold = CaseFold::Unicode}).error(),
      Error::kInvalidUtf8Keyword);
  EXPECT_TRUE(Matcher::try_build(std::span<const std::string>(bad)).ok());
  EXPECT_THROW((void)Matcher::build(empty), std::invalid_argument);
  EXPECT_EQ(error_message(Error::kEmptyKeyword), "empty keyword");
}

TEST(MatchApi, DictionarySizeLimit) {
  std::vector<std::string> big(kMaxDictionaryBytes / 256 + 1, std::string(256, 'q'));
  EXPECT_EQ(Matcher::try_build(std::span<const std::string>(big)).error(),
            Error::kDictionaryTooLarge);
}

TEST(MatchApi, StatsReportThePresetBuilt) {
  const std::vector<std::string> words = {"alpha", "beta", "gamma"};
  for (const Preset p : {Preset::Speed, Preset::Balanced, Preset::MemoryEfficient}) {
    const auto m = Matcher::build(words, Options{.preset = p});
    const Stats s = m.stats();
    EXPECT_EQ(s.preset, p);
    EXPECT_EQ(s.states, 15u);  // root + 5 + 4 + 5
    EXPECT_GT(s.memory_bytes, 0u);
  }
  EXPECT_EQ(Matcher::build(words).stats().preset, Preset::Speed);  // Auto, small
  // Distinct bytes a,b,e,g,h,l,m,p,t + the "other" class.
  EXPECT_EQ(Matcher::build(words).stats().byte_classes, 10u);
}

TEST(MatchApi, MemoryEfficientIsSmallerThanSpeed) {
  std::vector<std::string> words;
  for (int i = 0; i < 2000; ++i) words.push_back("keyword" + std::to_string(i * 7919));
  const auto speed = Matcher::build(words, Options{.preset = Preset::Speed}).stats();
  const auto bal = Matcher::build(words, Options{.preset = Preset::Balanced}).stats();
  const auto mem = Matcher::build(words, Options{.preset = Preset::MemoryEfficient}).stats();
  EXPECT_LT(mem.memory_bytes, bal.memory_bytes);
  EXPECT_LT(bal.memory_bytes, speed.memory_bytes);
}

TEST(MatchApi, OptionNamesAreTheCommandLineSpellings) {
  static_assert(preset_named("memory") == Preset::MemoryEfficient);
  EXPECT_EQ(preset_named("auto"), Preset::Auto);
  EXPECT_EQ(preset_named("speed"), Preset::Speed);
  EXPECT_EQ(preset_named("balanced"), Preset::Balanced);
  EXPECT_EQ(preset_named("Speed"), std::nullopt);
  EXPECT_EQ(kind_named("overlapping"), MatchKind::Overlapping);
  EXPECT_EQ(kind_named("leftmost-first"), MatchKind::LeftmostFirst);
  EXPECT_EQ(kind_named("leftmost-longest"), MatchKind::LeftmostLongest);
  EXPECT_EQ(kind_named("leftmost"), std::nullopt);
  EXPECT_EQ(fold_named("none"), CaseFold::None);
  EXPECT_EQ(fold_named("ascii"), CaseFold::Ascii);
  EXPECT_EQ(fold_named("unicode"), CaseFold::Unicode);
  EXPECT_EQ(fold_named(""), std::nullopt);
}

}  // namespace
}  // namespace herald::match
