// Structural counts: find with no match allocates nothing, under every
// setting; with a reused output vector, matches allocate nothing either once
// it has grown.
#include <gtest/gtest.h>

#include "match/matcher.hpp"
#include "support.hpp"
#include "support/alloc_counter.hpp"

namespace herald::match {
namespace {

TEST(MatchAllocations, FindWithNoMatchAllocatesNothing) {
  const std::vector<std::string> words = {"keyword1", "Straße", "한국어", "cat"};
  const std::string text = "the quick brown fox jumps over the lazy dog, ДОБРЫЙ ДЕНЬ, 안녕하세요";
  for (const Options& o : testing::all_options()) {
    const auto m = Matcher::build(words, o);
    std::vector<Match> out;
    std::vector<PatternID> set;
    std::vector<MatchDetail> details;
    herald::test::AllocationScope scope;
    m.find(text, out);
    m.find_set(text, set);
    m.find_matches(text, details);
    EXPECT_FALSE(m.contains(text));
    EXPECT_EQ(scope.count(), 0u) << testing::describe(o);
    EXPECT_TRUE(out.empty());
  }
}

// Long texts take the DFA's interleaved lanes (detail/search.hpp), whose
// per-lane buffers are touched only by matches.
TEST(MatchAllocations, LongTextWithNoMatchAllocatesNothing) {
  const std::vector<std::string> words = {"keyword1", "zebra", "quux", "cat"};
  std::string text;
  while (text.size() < 200'000) text += "the quick brown fox jumps over the lazy dog ";
  for (const Options& o : testing::all_options()) {
    const auto m = Matcher::build(words, o);
    std::vector<Match> out;
    herald::test::AllocationScope scope;
    m.find(text, out);
    EXPECT_EQ(scope.count(), 0u) << testing::describe(o);
    EXPECT_TRUE(out.empty());
  }
}

TEST(MatchAllocations, ReusedBufferAllocatesNothingOnceGrown) {
  const std::vector<std::string> words = {"keyword50", "keyword99"};
  std::string text;
  for (int i = 0; i < 10; ++i)
    text += "the quick brown keyword50 fox keyword99 jumps over the lazy dog ";
  const auto m = Matcher::build(words, Options{.preset = Preset::Balanced});
  std::vector<Match> out;
  m.find(text, out);
  ASSERT_EQ(out.size(), 20u);
  herald::test::AllocationScope scope;
  m.find(text, out);
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(out.size(), 20u);
}

}  // namespace
}  // namespace herald::match
