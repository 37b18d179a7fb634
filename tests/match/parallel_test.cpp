// find_parallel's threads, the only threads in herald::match. This binary is
// labelled `threaded` so the TSan suite runs it; match_test (large
// dictionaries against the naive matcher: minutes under TSan, with no thread
// to watch) runs in the release and ASan suites.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "support.hpp"

namespace herald::match {
namespace {

using testing::describe;

// Every preset, kind and whole-word setting without Unicode folding (whose
// keywords must be valid UTF-8; the random text is not), each split over
// two to four threads at chunk sizes from one byte to past the DFA's lanes
// threshold, against find on the calling thread.
TEST(MatchParallel, EqualsFindForEveryThreadCountAndChunk) {
  std::mt19937_64 rng(2718);
  std::string text;
  while (text.size() < 20000) text += testing::random_text(rng, 64);
  // Keywords cut from the text, so that they occur in it.
  std::vector<std::string> dict;
  for (int i = 0; i < 40; ++i)
    dict.push_back(text.substr(rng() % (text.size() - 8), 1 + rng() % 6));
  for (const Options& o : testing::all_options()) {
    if (o.fold == CaseFold::Unicode) continue;
    auto m = Matcher::try_build(std::span<const std::string>(dict), o);
    ASSERT_TRUE(m.ok()) << describe(o);
    const auto want = describe(m->find(text));
    for (const unsigned threads : {2u, 3u, 4u}) {
      for (const std::size_t chunk : {1u, 64u, 4096u}) {
        EXPECT_EQ(describe(m->find_parallel(text, threads, chunk)), want)
            << threads << " threads, chunk " << chunk << ' ' << describe(o);
      }
    }
  }
}

}  // namespace
}  // namespace herald::match
