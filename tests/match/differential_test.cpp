// Randomized differential tests: every engine setting against the naive
// reference, on random dictionaries built to stress the automata (prefix
// chains like {a, aa, aaa}, shared suffixes, one-byte keywords, duplicates,
// Unicode, mixed case, invalid bytes), and find_parallel / stream search
// against find at many chunk sizes. Seeds are fixed: failures reproduce.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "match/detail/leftmost_dfa.hpp"
#include "match/detail/leftmost_search.hpp"
#include "match/detail/utf8.hpp"
#include "match/matcher.hpp"
#include "match/naive.hpp"
#include "support.hpp"

namespace herald::match {
namespace {

using testing::describe;

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const detail::Unit u = detail::decode(s, i);
    if (u.cp == detail::kInvalid) return false;
    i += u.len;
  }
  return true;
}

std::vector<std::string> random_dictionary(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::string> out;
  std::uniform_int_distribution<int> shape(0, 9);
  std::uniform_int_distribution<std::size_t> len(1, 4);
  for (std::size_t i = 0; i < n; ++i) {
    switch (shape(rng)) {
      case 0:
        out.push_back(std::string(len(rng), 'a'));
        break;  // a, aa, aaa...
      case 1:
        out.push_back(out.empty() ? "a" : out[rng() % out.size()]);
        break;  // duplicate
      case 2:
        out.push_back(testing::random_text(rng, 1).substr(0, 1));
        break;  // one byte
      default:
        out.push_back(testing::random_text(rng, len(rng)));
        break;
    }
    if (out.back().empty()) out.back() = "b";
  }
  return out;
}

void compare_all(const std::vector<std::string>& dict, const std::vector<std::string>& texts,
                 const char* label) {
  for (const Options& o : testing::all_options()) {
    std::vector<std::string> d = dict;
    if (o.fold == CaseFold::Unicode) {
      std::erase_if(d, [](const std::string& k) { return !valid_utf8(k); });
      if (d.empty()) d.push_back("a");
    }
    auto m = Matcher::try_build(std::span<const std::string>(d), o);
    ASSERT_TRUE(m.ok()) << error_message(m.error());
    const NaiveMatcher naive(d, o);
    for (const std::string& t : texts) {
      const auto got = m->find(t);
      const auto want = naive.find(t);
      ASSERT_EQ(describe(got), describe(want)) << label << ' ' << describe(o) << " text=" << t;
      ASSERT_EQ(m->contains(t), !want.empty());
    }
  }
}

TEST(MatchDifferential, SmallRandomDictionariesAgreeWithNaive) {
  std::mt19937_64 rng(20261129);
  for (int round = 0; round < 60; ++round) {
    const auto dict = random_dictionary(rng, 1 + rng() % 12);
    std::vector<std::string> texts;
    for (int t = 0; t < 6; ++t) texts.push_back(testing::random_text(rng, rng() % 40));
    compare_all(dict, texts, "small");
  }
}

TEST(MatchDifferential, PrefixChainsAndSharedSuffixes) {
  const std::vector<std::string> dict = {"a",   "aa", "aaa", "ba", "cba", "dcba",
                                         "abc", "bc", "c",   "ab", "b",   "aab"};
  std::mt19937_64 rng(7);
  std::vector<std::string> texts = {"aaaa", "dcbaaab", "abcabc", "aabcba"};
  for (int t = 0; t < 20; ++t) {
    std::string s;
    for (int k = 0; k < 30; ++k) s += "abcd"[rng() % 4];
    texts.push_back(s);
  }
  compare_all(dict, texts, "chains");
}

// Dictionaries whose keywords all begin with one byte turn the start-state
// prefilter on (memchr, or one compare per byte for an ASCII letter under
// ASCII folding); it must not change any answer.
TEST(MatchDifferential, SingleStartByteDictionariesUseThePrefilter) {
  std::mt19937_64 rng(5);
  for (const char* lead : {"k", "K", "7", "\xC3"}) {
    std::vector<std::string> dict;
    for (int i = 0; i < 6; ++i) dict.push_back(lead + testing::random_text(rng, rng() % 3));
    std::vector<std::string> texts;
    for (int t = 0; t < 8; ++t) {
      std::string s;
      for (int k = 0; k < 20; ++k)
        s += (rng() % 3 == 0 ? std::string(lead) : "") + testing::random_text(rng, 1);
      texts.push_back(s + "kK7");
    }
    compare_all(dict, texts, lead);
  }
}

// A large dictionary against the naive matcher: the naive side is quadratic,
// so the text stays short; the dictionary size exercises dense/sparse states.
TEST(MatchDifferential, LargeDictionaryAgreesWithNaive) {
  std::mt19937_64 rng(99);
  std::vector<std::string> dict;
  for (int i = 0; i < 100'000; ++i) {
    std::string k;
    const std::size_t len = 2 + rng() % 6;
    for (std::size_t j = 0; j < len; ++j) k += "abcdefghij"[rng() % 10];
    dict.push_back(k);
  }
  std::string text;
  for (int j = 0; j < 300; ++j) text += "abcdefghij "[rng() % 11];
  for (const Preset p : testing::kPresets) {
    for (const MatchKind k : testing::kKinds) {
      const Options o{p, k, CaseFold::Ascii, false};
      auto m = Matcher::try_build(std::span<const std::string>(dict), o);
      ASSERT_TRUE(m.ok());
      const NaiveMatcher naive(dict, o);
      EXPECT_EQ(describe(m->find(text)), describe(naive.find(text))) << describe(o);
    }
  }
}

TEST(MatchDifferential, ParallelAndStreamEqualFindAtEveryChunkSize) {
  std::mt19937_64 rng(31337);
  for (int round = 0; round < 8; ++round) {
    const auto dict = random_dictionary(rng, 1 + rng() % 8);
    const std::string text = testing::random_text(rng, 300);
    for (const Options& o : testing::all_options()) {
      if (o.preset != Preset::Speed && o.preset != Preset::MemoryEfficient) continue;
      std::vector<std::string> d = dict;
      if (o.fold == CaseFold::Unicode) {
        std::erase_if(d, [](const std::string& k) { return !valid_utf8(k); });
        if (d.empty()) d.push_back("a");
      }
      auto m = Matcher::try_build(std::span<const std::string>(d), o);
      ASSERT_TRUE(m.ok());
      const auto want = describe(m->find(text));
      for (const std::size_t chunk : {1, 2, 3, 5, 7, 16, 64, 1000}) {
        EXPECT_EQ(describe(m->find_parallel(text, 4, chunk)), want)
            << "parallel chunk=" << chunk << ' ' << describe(o);
        StreamSearcher s(*m);
        std::vector<Match> got;
        for (std::size_t i = 0; i < text.size(); i += chunk) {
          s.feed(std::string_view(text).substr(i, chunk), got);
        }
        s.finish(got);
        EXPECT_EQ(describe(got), want) << "stream chunk=" << chunk << ' ' << describe(o);
      }
    }
  }
}

// The interleaved lanes of the DFA's overlapping scan and of the leftmost
// automaton's (4 KiB texts and longer, byte mode) against the plain single
// walk they replace, on texts around every size where the cutting changes:
// the lanes' threshold, one block, the last block's merge (under two
// blocks), several blocks. Long keywords make the overlapping warm-up
// (max_match bytes) and the leftmost lanes' matches reach across chunks;
// results are also checked by find_parallel, whose chunks scan from an
// offset.
TEST(MatchDifferential, InterleavedLanesEqualThePlainWalk) {
  std::mt19937_64 rng(4242);
  // Overlapping with and without whole words and both foldings; the
  // leftmost kinds where their lanes run (no whole words: leftmost_dfa.hpp).
  struct Setting {
    MatchKind kind;
    CaseFold fold;
    bool whole_word;
  };
  std::vector<Setting> lane_settings;
  for (const CaseFold fold : {CaseFold::None, CaseFold::Ascii}) {
    for (const bool whole_word : {false, true}) {
      lane_settings.push_back({MatchKind::Overlapping, fold, whole_word});
    }
    lane_settings.push_back({MatchKind::LeftmostFirst, fold, false});
    lane_settings.push_back({MatchKind::LeftmostLongest, fold, false});
  }
  const std::size_t block = 64u << 10;
  const std::size_t sizes[] = {4095,  4096,          4097,      9000,           block - 1,
                               block, 2 * block - 1, 2 * block, 3 * block + 777};
  for (int round = 0; round < 6; ++round) {
    auto dict = random_dictionary(rng, 2 + rng() % (round < 3 ? 8 : 400));
    if (round % 2 == 1) dict.push_back(std::string(120 + rng() % 100, 'a') + "b");
    std::string piece_text;
    while (piece_text.size() < 3 * block + 1000) piece_text += testing::random_text(rng, 64);
    for (const auto& [kind, fold, whole_word] : lane_settings) {
      const Options lanes{Preset::Speed, kind, fold, whole_word, true};
      Options plain = lanes;
      plain.interleave = false;
      const auto m = Matcher::build(dict, lanes);
      const auto twin = Matcher::build(dict, plain);
      for (const std::size_t n : sizes) {
        const std::string_view text = std::string_view(piece_text).substr(0, n);
        const auto want = twin.find(text);
        const auto got = m.find(text);
        ASSERT_EQ(got.size(), want.size()) << "round " << round << " n=" << n;
        ASSERT_TRUE(got == want) << "round " << round << " n=" << n << ' ' << describe(lanes);
      }
      const std::string_view all(piece_text);
      ASSERT_TRUE(m.find_parallel(all, 3, 4096) == twin.find(all)) << "round " << round;
    }
  }
}

// The hybrid table (Options::dense_table_bytes, detail/hybrid_dfa.hpp)
// against the flat one, its plain twin, on dictionaries large enough for
// chains of deep states whose failure targets are deep too: 20,000 words of
// three to nine letters over twelve, and 5,000 Korean words of 2-4 syllables over
// twelve. The budgets put the line between flat and sparse rows at the root
// (0) and at several depths below it. Every kind and folding, with and
// without whole words: the overlapping automaton and, for the leftmost
// kinds in byte mode without whole words, the leftmost one
// (leftmost_dfa.hpp), each over either table.
TEST(MatchDifferential, HybridTableEqualsTheFlatOne) {
  std::mt19937_64 rng(2026120301);
  // n distinct words (duplicates would multiply the matches, not the states).
  const auto words = [&](std::size_t n, const std::vector<std::string>& letters,
                         std::size_t min_len, std::size_t max_len) {
    std::set<std::string> seen;
    std::vector<std::string> out;
    while (out.size() < n) {
      std::string w;
      const std::size_t len = min_len + rng() % (max_len - min_len + 1);
      for (std::size_t j = 0; j < len; ++j) w += letters[rng() % letters.size()];
      if (seen.insert(w).second) out.push_back(w);
    }
    return out;
  };
  const std::vector<std::string> latin = {"a", "b", "c", "d", "e", "f",
                                          "g", "h", "i", "j", "K", "L"};
  const std::vector<std::string> hangul = {"가", "나", "다", "라", "마", "바",
                                           "사", "아", "자", "차", "카", "타"};
  struct Corpus {
    std::vector<std::string> dict;
    std::string text;
  };
  std::vector<Corpus> corpora;
  for (const auto* letters : {&latin, &hangul}) {
    Corpus c;
    c.dict = letters == &latin ? words(20'000, latin, 3, 9) : words(5'000, hangul, 2, 4);
    while (c.text.size() < 50'000) {
      for (const auto& w : words(1, *letters, 1, 6)) c.text += w + (rng() % 4 == 0 ? " " : "");
    }
    corpora.push_back(std::move(c));
  }
  for (const auto& [dict, text] : corpora) {
    for (const MatchKind kind : testing::kKinds) {
      for (const CaseFold fold : testing::kFolds) {
        for (const bool whole_word : {false, true}) {
          Options flat{Preset::Speed, kind, fold, whole_word};
          flat.dense_table_bytes = SIZE_MAX;
          const auto twin = Matcher::build(dict, flat);
          ASSERT_EQ(twin.stats().sparse_states, 0u);
          const auto want = twin.find(text);
          for (const std::size_t budget : {0u, 4u << 10, 32u << 10, 128u << 10}) {
            Options o = flat;
            o.dense_table_bytes = budget;
            const auto m = Matcher::build(dict, o);
            EXPECT_GT(m.stats().sparse_states, 0u) << describe(o);
            EXPECT_LT(m.stats().memory_bytes, twin.stats().memory_bytes) << describe(o);
            const auto got = m.find(text);
            ASSERT_EQ(got.size(), want.size()) << describe(o);
            ASSERT_TRUE(got == want) << describe(o);
            ASSERT_TRUE(m.find_parallel(text, 3, 4096) == want) << describe(o);
            ASSERT_EQ(m.contains(text.substr(0, 64)), twin.contains(text.substr(0, 64)));
          }
        }
      }
    }
  }
}

// The leftmost automaton (Speed, a leftmost kind, byte mode, no whole
// words: one forward pass per match, detail/leftmost_dfa.hpp) against the
// rescanning search over the overlapping automaton (Balanced: leftmost_at,
// its plain twin) on dictionaries too large and texts too long for the naive
// matcher: prefix chains and shared suffixes at 400 keywords, and 20,000
// words over five letters, where almost every position starts a live
// thread. Parallel and stream search run the same automaton from offsets.
TEST(MatchDifferential, LeftmostAutomatonEqualsTheRescanningTwin) {
  std::mt19937_64 rng(8128);
  std::vector<std::vector<std::string>> dicts;
  for (int round = 0; round < 4; ++round) dicts.push_back(random_dictionary(rng, 2 + rng() % 400));
  std::vector<std::string> words;
  for (int i = 0; i < 20'000; ++i) {
    std::string w;
    for (std::size_t j = 0, n = 1 + rng() % 7; j < n; ++j) w += "abcdE"[rng() % 5];
    words.push_back(w);
  }
  dicts.push_back(words);
  std::string text;
  while (text.size() < 100'000) text += testing::random_text(rng, 64);
  for (int j = 0; j < 100'000; ++j) text += "abcdeABCDE "[rng() % 11];
  for (const auto& dict : dicts) {
    for (const MatchKind kind : {MatchKind::LeftmostFirst, MatchKind::LeftmostLongest}) {
      for (const CaseFold fold : {CaseFold::None, CaseFold::Ascii}) {
        const Options fast{Preset::Speed, kind, fold, false};
        Options twin_options = fast;
        twin_options.preset = Preset::Balanced;
        const auto m = Matcher::build(dict, fast);
        const auto twin = Matcher::build(dict, twin_options);
        const auto want = twin.find(text);
        const auto got = m.find(text);
        ASSERT_EQ(got.size(), want.size()) << describe(fast) << " keywords=" << dict.size();
        ASSERT_TRUE(got == want) << describe(fast) << " keywords=" << dict.size();
        ASSERT_TRUE(m.find_parallel(text, 3, 4096) == want) << describe(fast);
        ASSERT_TRUE(find_stream(m,
                                [&, pos = std::size_t{0}](std::span<char> buf) mutable {
                                  const std::size_t n = std::min<std::size_t>(
                                      std::min<std::size_t>(buf.size(), 777), text.size() - pos);
                                  std::copy_n(text.data() + pos, n, buf.data());
                                  pos += n;
                                  return n;
                                }) == want)
            << describe(fast);
      }
    }
  }
}

// The lane-loop tests' inputs: `dense_words` words of one to six letters
// over five, so that a text over the same letters (and spaces) has a match
// state at most steps; that text; a sparse one of random words; and the
// dictionaries, the dense words and 300 random ones.
struct LaneInputs {
  std::vector<std::vector<std::string>> dicts;
  std::string dense_text;
  std::string sparse_text;
};

LaneInputs lane_inputs(std::mt19937_64& rng, int dense_words, std::size_t text_bytes) {
  LaneInputs in;
  std::vector<std::string> words;
  for (int i = 0; i < dense_words; ++i) {
    std::string w;
    for (std::size_t j = 0, n = 1 + rng() % 6; j < n; ++j) w += "abcde"[rng() % 5];
    words.push_back(w);
  }
  while (in.dense_text.size() < text_bytes) in.dense_text += "abcde "[rng() % 6];
  while (in.sparse_text.size() < text_bytes) in.sparse_text += testing::random_text(rng, 64);
  in.dicts = {words, random_dictionary(rng, 300)};
  return in;
}

bool same_found(const std::vector<detail::Found>& x, const std::vector<detail::Found>& y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                    [](const detail::Found& a, const detail::Found& b) {
                      return a.pattern == b.pattern && a.start == b.start && a.end == b.end;
                    });
}

// The chain of one-match walks (leftmost_find_at) from `from`, each walk
// starting at the last match's end, up to the first match starting at or
// past `limit`: what a leftmost lane from `from` to `limit` must report.
template <class A>
std::vector<detail::Found> leftmost_chain(const A& a, std::string_view text, std::size_t from,
                                          std::size_t limit) {
  const detail::StartPrefilter no_prefilter;
  const detail::ScanSpec spec{nullptr, MatchKind::LeftmostFirst, false, false, &no_prefilter};
  std::vector<detail::Found> out;
  for (std::size_t pos = from; pos < text.size();) {
    const auto f = detail::leftmost_find_at(a, spec, text, pos);
    if (!f || f->start >= limit) break;
    out.push_back(*f);
    pos = f->end;
  }
  return out;
}

// Both leftmost lane loops over `cut`, each lane against leftmost_chain
// from its cut to the next: "" where all agree, else the loop and lane that
// differ. Adds the chains' matches to `checked`.
template <std::size_t kLaneCount, class A>
std::string leftmost_lanes_differ(const A& a, std::string_view text,
                                  const std::array<std::size_t, kLaneCount + 1>& cut,
                                  std::size_t& checked) {
  using detail::Found;
  using detail::LaneLoop;
  std::array<std::vector<Found>, kLaneCount> branching;
  std::array<std::vector<Found>, kLaneCount> selecting;
  detail::leftmost_lanes<LaneLoop::Branching, kLaneCount>(
      a, text, cut, [&](std::size_t k, const Found& f) { branching[k].push_back(f); });
  detail::leftmost_lanes<LaneLoop::Selecting, kLaneCount>(
      a, text, cut, [&](std::size_t k, const Found& f) { selecting[k].push_back(f); });
  const std::string lane = " loop, " + std::to_string(kLaneCount) + " lanes, lane ";
  for (std::size_t k = 0; k < kLaneCount; ++k) {
    const auto want = leftmost_chain(a, text, cut[k], cut[k + 1]);
    if (!same_found(branching[k], want)) return "Branching" + lane + std::to_string(k);
    if (!same_found(selecting[k], want)) return "Selecting" + lane + std::to_string(k);
    checked += want.size();
  }
  return "";
}

// f.template operator()<kLaneCount>() for each lane count find uses.
template <class F>
void with_each_lane_count(F&& f) {
  f.template operator()<detail::kLanes>();
  f.template operator()<detail::kWideLanes>();
}

// find's choice of the lanes' loop (detail/search.hpp, LaneLoopChoice):
// Branching for the first block, then Selecting after a block with at least
// one match per kDenseMatchBytes bytes, and back after a sparse one; sixteen
// lanes for Selecting over a table of kWideLanesTableBytes or more, eight
// otherwise.
TEST(MatchDifferential, LaneLoopChoiceFollowsTheBlockBefore) {
  using detail::LaneLoop;
  struct Taken {
    LaneLoop loop;
    std::size_t lanes;
    bool operator==(const Taken&) const = default;
  };
  for (const bool large : {false, true}) {
    detail::LaneLoopChoice choice(large ? detail::kWideLanesTableBytes
                                        : detail::kWideLanesTableBytes - 1);
    const auto taken = [&] {
      Taken t{};
      choice.run([&]<LaneLoop kLoop, std::size_t kLaneCount>() { t = {kLoop, kLaneCount}; });
      return t;
    };
    const Taken branching{LaneLoop::Branching, detail::kLanes};
    const Taken selecting{LaneLoop::Selecting, large ? detail::kWideLanes : detail::kLanes};
    const std::size_t block = 64u << 10;
    const std::size_t dense = block / detail::kDenseMatchBytes;
    EXPECT_EQ(taken(), branching);
    choice.after(dense, block);
    EXPECT_EQ(taken(), selecting);
    choice.after(dense - 1, block);
    EXPECT_EQ(taken(), branching);
    choice.after(block, block);
    EXPECT_EQ(taken(), selecting);
    choice.after(0, block);
    EXPECT_EQ(taken(), branching);
  }
}

// The lanes' two hot loops (detail/leftmost_search.hpp: Branching, and
// Selecting, which find takes where matches are dense) against the plain
// chain of one-match walks (leftmost_find_at, each walk starting at the last
// match's end): lane k must report the chain that starts at cut k, up to its
// first match starting at or past cut k + 1. Dense texts (a match every few
// bytes, the walk re-read after most of them) and sparse ones, both kinds,
// over the flat table and the hybrid one with every row sparse, cuts at
// random places and at the text's ends.
TEST(MatchDifferential, LeftmostLaneLoopsEqualThePlainChain) {
  using namespace herald::match::detail;
  std::mt19937_64 rng(6174);
  const LaneInputs in = lane_inputs(rng, 3'000, 30'000);
  const auto& dicts = in.dicts;
  const std::string& dense_text = in.dense_text;
  const std::string& sparse_text = in.sparse_text;
  std::size_t checked = 0;
  const auto check = [&](const auto& a, const std::string& what) {
    for (const std::string_view text :
         {std::string_view(dense_text), std::string_view(sparse_text)}) {
      for (int round = 0; round < 6; ++round) {
        with_each_lane_count([&]<std::size_t kLaneCount>() {
          std::array<std::size_t, kLaneCount + 1> cut;
          cut[0] = round == 0 ? 0 : rng() % 100;
          cut[kLaneCount] = round == 0 ? text.size() : text.size() - rng() % 100;
          for (std::size_t k = 1; k < kLaneCount; ++k) {
            cut[k] = cut[0] + (cut[kLaneCount] - cut[0]) * k / kLaneCount + rng() % 50;
          }
          ASSERT_EQ(leftmost_lanes_differ<kLaneCount>(a, text, cut, checked), "") << what;
        });
      }
    }
  };
  for (const auto& dict : dicts) {
    const ByteClasses classes = make_byte_classes(dict, false);
    for (const MatchKind kind : {MatchKind::LeftmostFirst, MatchKind::LeftmostLongest}) {
      const NoncontiguousNFA nfa = leftmost_nfa(dict, kind);
      const std::string what =
          describe(Options{Preset::Speed, kind}) + " keywords=" + std::to_string(dict.size());
      check(LeftmostDFA(DFA(nfa, classes), dict), what + " flat");
      const HybridDFA hybrid(nfa, classes, 0);
      ASSERT_GT(hybrid.state_count(), hybrid.dense_state_count());
      check(LeftmostHybridDFA(HybridDFA(nfa, classes, 0), dict), what + " sparse");
    }
  }
  // The dense text gives most of them: a match every few bytes.
  EXPECT_GT(checked, 100'000u);
}

// The overlapping lanes' two hot loops (detail/search.hpp: Branching, and
// Selecting, which find takes where matches are dense) against the plain
// walk (scan_overlapping): the lanes' reports, concatenated in lane order,
// must be the walk's, with whole words on and off, over the flat table and
// the hybrid one with every row sparse, on a dense text (a match state at
// most steps) and a sparse one, from offsets where the walk's state is
// valid before the scanned range.
TEST(MatchDifferential, OverlappingLaneLoopsEqualThePlainWalk) {
  using namespace herald::match::detail;
  std::mt19937_64 rng(1729);
  const LaneInputs in = lane_inputs(rng, 300, 12'000);
  const auto& dicts = in.dicts;
  const std::string& dense_text = in.dense_text;
  const std::string& sparse_text = in.sparse_text;
  const StartPrefilter no_prefilter;
  std::size_t checked = 0;
  for (const auto& dict : dicts) {
    std::vector<PatternInfo> patterns;
    std::size_t max_match = 0;
    for (const auto& w : dict) {
      // Safety: the test's words are a few bytes long.
      patterns.push_back(
          {static_cast<std::uint32_t>(w.size()), static_cast<std::uint32_t>(w.size())});
      max_match = std::max(max_match, w.size());
    }
    const ByteClasses classes = make_byte_classes(dict, false);
    const NoncontiguousNFA nfa(dict);
    const DFA flat(nfa, classes);
    const HybridDFA sparse(nfa, classes, 0);
    ASSERT_GT(sparse.state_count(), sparse.dense_state_count());
    const auto check = [&](const auto& a, const std::string& what) {
      for (const bool whole_word : {false, true}) {
        const ScanSpec spec{&patterns, MatchKind::Overlapping, false, whole_word, &no_prefilter};
        for (const std::string_view text :
             {std::string_view(dense_text), std::string_view(sparse_text)}) {
          for (int round = 0; round < 4; ++round) {
            const std::size_t origin = round == 0 ? 0 : rng() % 200;
            const std::size_t from = round == 0 ? 0 : origin + rng() % 200;
            const std::size_t to = round == 0 ? text.size() : text.size() - rng() % 200;
            std::vector<Found> want;
            scan_overlapping(a, spec, text, origin, to, [&](const Found& f) {
              if (f.end > from) want.push_back(f);
              return true;
            });
            with_each_lane_count([&]<std::size_t kLaneCount>() {
              std::array<std::vector<Found>, kLaneCount> branching;
              std::array<std::vector<Found>, kLaneCount> selecting;
              scan_overlapping_lanes<LaneLoop::Branching, kLaneCount>(
                  a, spec, text, origin, from, to, max_match,
                  [&](std::size_t k, const Found& f) { branching[k].push_back(f); });
              scan_overlapping_lanes<LaneLoop::Selecting, kLaneCount>(
                  a, spec, text, origin, from, to, max_match,
                  [&](std::size_t k, const Found& f) { selecting[k].push_back(f); });
              std::vector<Found> got_branching;
              std::vector<Found> got_selecting;
              for (std::size_t k = 0; k < kLaneCount; ++k) {
                got_branching.insert(got_branching.end(), branching[k].begin(), branching[k].end());
                got_selecting.insert(got_selecting.end(), selecting[k].begin(), selecting[k].end());
              }
              ASSERT_TRUE(same_found(got_branching, want))
                  << what << " lanes " << kLaneCount << " whole_word=" << whole_word;
              ASSERT_TRUE(same_found(got_selecting, want))
                  << what << " lanes " << kLaneCount << " whole_word=" << whole_word;
            });
            checked += want.size();
          }
        }
      }
    };
    const std::string what = "keywords=" + std::to_string(dict.size());
    check(flat, what + " flat");
    check(sparse, what + " sparse");
  }
  // The dense text gives most of them: a match at most positions.
  EXPECT_GT(checked, 500'000u);
}

// A walk's later candidate can start before its first one: with abcd and c,
// the state for "abc" offers c, and "abcd" then replaces it with a match
// that starts two bytes earlier. Placed across the lanes' cuts (an 8 KiB
// text in equal chunks; with four lanes, cuts at 2,048, 4,096 and 6,144), a
// lane that stopped at the first candidate past its cut lost abcd to the
// next lane's c (found on K2's English corpus, not by the random tests
// above). find (eight lanes for this small table) against the naive
// matcher; each lane of both loops, at both lane counts, against the plain
// chain.
TEST(MatchDifferential, LeftmostLanesKeepAWalkThatCrossesTheirCut) {
  using namespace herald::match::detail;
  const std::vector<std::string> dict = {"abcd", "c"};
  with_each_lane_count([&]<std::size_t kLaneCount>() {
    std::string text(8192, 'x');
    std::array<std::size_t, kLaneCount + 1> cut;
    for (std::size_t k = 0; k <= kLaneCount; ++k) cut[k] = text.size() * k / kLaneCount;
    for (std::size_t k = 1; k < kLaneCount; ++k) text.replace(cut[k] - 2, 4, "abcd");
    for (const MatchKind kind : {MatchKind::LeftmostFirst, MatchKind::LeftmostLongest}) {
      const Options o{Preset::Speed, kind, CaseFold::None, false};
      const auto m = Matcher::build(dict, o);
      const auto want = NaiveMatcher(dict, o).find(text);
      ASSERT_EQ(want.size(), kLaneCount - 1);
      EXPECT_EQ(describe(m.find(text)), describe(want)) << describe(o);
      const LeftmostDFA a(DFA(leftmost_nfa(dict, kind), make_byte_classes(dict, false)), dict);
      std::size_t checked = 0;
      EXPECT_EQ(leftmost_lanes_differ<kLaneCount>(a, text, cut, checked), "") << describe(o);
    }
  });
}

// LeftmostFirst's automaton leaves out a keyword that an earlier one
// prefixes (it can never be reported), and reports the earlier one.
TEST(MatchDifferential, LeftmostFirstLeavesOutShadowedKeywords) {
  const std::vector<std::string> dict = {"ab", "abc", "abcd"};
  const auto first = Matcher::build(dict, Options{Preset::Speed, MatchKind::LeftmostFirst});
  const auto longest = Matcher::build(dict, Options{Preset::Speed, MatchKind::LeftmostLongest});
  const auto overlapping = Matcher::build(dict, Options{Preset::Speed, MatchKind::Overlapping});
  // Root, a, ab and the dead state; the longest kind keeps abc and abcd.
  EXPECT_EQ(first.stats().states, 4u);
  EXPECT_EQ(longest.stats().states, 6u);
  EXPECT_EQ(overlapping.stats().states, 5u);
  EXPECT_EQ(describe(first.find("xabcdab")),
            describe(std::vector<Match>{{PatternID{0}, 1, 3}, {PatternID{0}, 5, 7}}));
  EXPECT_EQ(describe(longest.find("xabcdab")),
            describe(std::vector<Match>{{PatternID{2}, 1, 5}, {PatternID{0}, 5, 7}}));
}

// find's sixteen lanes (kWideLanes: a table of kWideLanesTableBytes or
// more, dense matches) through the whole of find, stitching included,
// against the single walk (interleave = false) of the same automaton: 100,000
// words of 3 to 8 letters, so that most places start a match, over a text of
// three 64 KiB blocks and more (the first block takes eight lanes and
// Branching; the ones after, sixteen and Selecting), every kind.
TEST(MatchDifferential, WideLanesEqualTheSingleWalk) {
  std::mt19937_64 rng(4242);
  std::vector<std::string> dict;
  for (int i = 0; i < 100'000; ++i) {
    std::string w;
    for (std::size_t j = 0, n = 3 + rng() % 6; j < n; ++j)
      w += "abcdefghijklmnopqrstuvwxyz"[rng() % 26];
    dict.push_back(w);
  }
  std::string text;
  while (text.size() < 300'000) text += "abcdefghijklmnopqrstuvwxyz "[rng() % 27];
  for (const MatchKind kind : testing::kKinds) {
    Options o{Preset::Speed, kind, CaseFold::None, false};
    const auto m = Matcher::build(dict, o);
    ASSERT_GE(m.stats().memory_bytes, detail::kWideLanesTableBytes) << describe(o);
    o.interleave = false;
    const auto want = Matcher::build(dict, o).find(text);
    const auto got = m.find(text);
    // Dense: the blocks after the first take the Selecting loop.
    ASSERT_GE(want.size() * detail::kDenseMatchBytes, text.size()) << describe(o);
    ASSERT_EQ(got.size(), want.size()) << describe(o);
    EXPECT_TRUE(got == want) << describe(o);
  }
}

// The plain walk itself against the naive reference on a text long enough
// for lanes, so the twin is checked too (a small dictionary keeps the naive
// matcher quick).
TEST(MatchDifferential, LongTextsAgreeWithNaive) {
  std::mt19937_64 rng(777);
  const auto dict = random_dictionary(rng, 12);
  std::string text;
  while (text.size() < 20'000) text += testing::random_text(rng, 64);
  for (const bool interleave : {true, false}) {
    const Options o{Preset::Speed, MatchKind::Overlapping, CaseFold::Ascii, false, interleave};
    const auto m = Matcher::build(dict, o);
    EXPECT_EQ(describe(m.find(text)), describe(NaiveMatcher(dict, o).find(text)))
        << "interleave=" << interleave;
  }
}

// Found by the fuzzer: with a long keyword (M = 12), a leftmost candidate
// near the window's end ("b" at 15) is not final, and an occurrence cut off
// by the window ("abc" at 14) starts before it; the stream must resume
// before both.
TEST(MatchDifferential, StreamResumesBeforeAnOccurrenceCutByTheWindow) {
  const std::vector<std::string> dict = {"abc>>>>>>dbc", "b", "abc"};
  const std::string text =
      "x-JJJJJJ\xB6\xB5\x9E\x9F"
      "cdabcbc";
  for (const MatchKind k : testing::kKinds) {
    auto m = Matcher::build(dict, Options{Preset::Speed, k, CaseFold::None, false});
    const auto want = describe(m.find(text));
    for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
      StreamSearcher s(m);
      std::vector<Match> got;
      for (std::size_t i = 0; i < text.size(); i += chunk) {
        s.feed(std::string_view(text).substr(i, chunk), got);
      }
      s.finish(got);
      EXPECT_EQ(describe(got), want) << "chunk=" << chunk;
    }
  }
}

TEST(MatchDifferential, FindStreamReadsAReader) {
  const std::vector<std::string> dict = {"needle", "dle"};
  auto m = Matcher::build(dict, Options{Preset::Balanced, MatchKind::Overlapping, {}, false});
  std::string text;
  for (int i = 0; i < 1000; ++i) text += (i % 7 == 0) ? "needle" : "hay";
  std::size_t pos = 0;
  const auto got = find_stream(
      m,
      [&](std::span<char> buf) {
        const std::size_t n = std::min<std::size_t>(buf.size(), text.size() - pos);
        std::copy_n(text.data() + pos, n, buf.data());
        pos += n;
        return n;
      },
      13);
  EXPECT_EQ(describe(got), describe(m.find(text)));
  EXPECT_EQ(got.size(), 2u * 143);
}

}  // namespace
}  // namespace herald::match
