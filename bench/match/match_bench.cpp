// K1 and K2 of docs/benchmarks.md for herald::match.
//
// K1 (ACOR's shape): keywords keyword0..keyword{N-1}, N = 100 and 1000; the
// text "the quick brown keyword50 fox keyword99 jumps over the lazy dog "
// repeated 10 times (640 bytes). find (a fresh result vector per call, as
// ACOR's Find returns a new slice), find into a reused buffer, and find_set,
// for each preset; counters: allocations per op.
//
// K2: dictionaries of 1,000 / 10,000 / 100,000 words sampled with a fixed
// seed from /usr/share/dict/words (Debian's wamerican); a 32 MiB haystack of
// words drawn with a fixed seed from the same list, separated by spaces.
// Korean: there is no Korean word list in Debian's dictionaries-common set on
// this machine, so words of 2-4 syllables are generated with a fixed seed
// from a fixed list of ~150 frequent Hangul syllables; dictionary and haystack are
// drawn from those words the same way. Each preset x kind reports MB/s and
// matches per run; Hyperscan (literal mode, all matches: the overlapping
// semantics) runs on the same dictionary and haystack; the naive reference
// runs on the first 1 MiB (it is quadratic in dictionary size) as the floor.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "match/naive.hpp"
#include "support/alloc_counter.hpp"

#ifdef HERALD_BENCH_HYPERSCAN
#include <hs/hs.h>
#endif

namespace {

using namespace herald::match;

// ---------------------------------------------------------------- K1

std::vector<std::string> k1_dictionary(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("keyword" + std::to_string(i));
  return out;
}

std::string k1_text() {
  std::string t;
  for (int i = 0; i < 10; ++i)
    t += "the quick brown keyword50 fox keyword99 jumps over the lazy dog ";
  return t;
}

enum class K1Op { Find, FindReuse, FindSet };

void K1(benchmark::State& state, Preset preset, K1Op op) {
  const auto words = k1_dictionary(static_cast<int>(state.range(0)));
  const auto m = Matcher::build(words, Options{.preset = preset});
  const std::string text = k1_text();
  std::vector<Match> reuse;
  std::vector<PatternID> set;
  std::size_t found = 0;
  const std::uint64_t a0 = herald::test::allocation_count();
  for (auto _ : state) {
    switch (op) {
      case K1Op::Find: {
        auto r = m.find(text);
        found = r.size();
        benchmark::DoNotOptimize(r.data());
        break;
      }
      case K1Op::FindReuse:
        m.find(text, reuse);
        found = reuse.size();
        break;
      case K1Op::FindSet:
        m.find_set(text, set);
        found = set.size();
        break;
    }
    benchmark::ClobberMemory();
  }
  const double allocs = static_cast<double>(herald::test::allocation_count() - a0);
  state.counters["allocs/op"] = allocs / static_cast<double>(state.iterations());
  state.counters["matches"] = static_cast<double>(found);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

// ---------------------------------------------------------------- K2

struct Corpus {
  std::vector<std::string> words;  // the vocabulary
  std::string haystack;            // >= 32 MiB
  std::map<int, std::vector<std::string>> dicts;
};

std::vector<std::string> english_words() {
  std::ifstream in("/usr/share/dict/words");
  std::vector<std::string> out;
  for (std::string w; std::getline(in, w);) {
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

std::vector<std::string> korean_words() {
  // Frequent syllables of Korean text (a fixed list; repeats weigh the draw).
  static const char* kSyl =
      "이다는의에을를가고하한지기서도로사으어리자나그대인수시정부전보아제상"
      "해일아니만요들중주무장경내소동성원화국민오연구문생학실신방관조여라계"
      "위공개우진선발교유당회명면비치적분기모물회후간체비전결반여세작형터용"
      "건목행설상력영성표통확시육권시세차본회람합업마것년말들사회운동";
  std::vector<std::string> syl;
  const std::string all(kSyl);
  for (std::size_t i = 0; i + 3 <= all.size(); i += 3) syl.push_back(all.substr(i, 3));
  std::mt19937_64 rng(1);
  std::vector<std::string> out;
  std::map<std::string, bool> seen;
  while (out.size() < 120'000) {
    std::string w;
    const int n = 2 + static_cast<int>(rng() % 3);
    for (int k = 0; k < n; ++k) w += syl[rng() % syl.size()];
    if (!seen[w]) seen[w] = true, out.push_back(w);
  }
  return out;
}

Corpus make_corpus(std::vector<std::string> words, std::uint64_t seed) {
  Corpus c;
  c.words = std::move(words);
  std::mt19937_64 rng(seed);
  // Zipf-like draw: most text is frequent words, as in real prose.
  std::vector<std::size_t> order(c.words.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  while (c.haystack.size() < (32u << 20)) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const auto rank = static_cast<std::size_t>(std::pow(static_cast<double>(order.size()), u)) - 1;
    c.haystack += c.words[order[std::min(rank, order.size() - 1)]];
    c.haystack += ' ';
  }
  for (const int n : {1000, 10000, 100000}) {
    std::vector<std::string> sample = c.words;
    std::mt19937_64 pick(seed + static_cast<std::uint64_t>(n));
    std::shuffle(sample.begin(), sample.end(), pick);
    sample.resize(std::min<std::size_t>(static_cast<std::size_t>(n), sample.size()));
    c.dicts[n] = std::move(sample);
  }
  return c;
}

const Corpus& corpus(bool korean) {
  static const Corpus en = make_corpus(english_words(), 42);
  static const Corpus ko = make_corpus(korean_words(), 43);
  return korean ? ko : en;
}

void K2(benchmark::State& state, bool korean, Preset preset, MatchKind kind, bool interleave) {
  const Corpus& c = corpus(korean);
  const auto& dict = c.dicts.at(static_cast<int>(state.range(0)));
  const auto m =
      Matcher::build(dict, Options{.preset = preset, .kind = kind, .interleave = interleave});
  std::vector<Match> out;
  for (auto _ : state) {
    m.find(c.haystack, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["matches"] = static_cast<double>(out.size());
  state.counters["build_ms"] = static_cast<double>(m.stats().build_time.count()) / 1e6;
  state.counters["memory_MB"] = static_cast<double>(m.stats().memory_bytes) / 1e6;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.haystack.size()));
}

void K2Naive(benchmark::State& state, bool korean) {
  const Corpus& c = corpus(korean);
  const auto& dict = c.dicts.at(static_cast<int>(state.range(0)));
  const NaiveMatcher naive(dict, Options{});
  const std::string_view text = std::string_view(c.haystack).substr(0, 1u << 20);
  std::size_t found = 0;
  for (auto _ : state) found = naive.find(text).size();
  state.counters["matches"] = static_cast<double>(found);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

#ifdef HERALD_BENCH_HYPERSCAN
int count_match(unsigned, unsigned long long, unsigned long long, unsigned, void* ctx) {
  ++*static_cast<std::size_t*>(ctx);
  return 0;
}

void K2Hyperscan(benchmark::State& state, bool korean) {
  const Corpus& c = corpus(korean);
  const auto& dict = c.dicts.at(static_cast<int>(state.range(0)));
  std::vector<const char*> exprs;
  std::vector<std::size_t> lens;
  std::vector<unsigned> flags(dict.size(), 0);
  std::vector<unsigned> ids(dict.size());
  for (std::size_t i = 0; i < dict.size(); ++i) {
    exprs.push_back(dict[i].data());
    lens.push_back(dict[i].size());
    ids[i] = static_cast<unsigned>(i);
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                           static_cast<unsigned>(dict.size()), HS_MODE_BLOCK, nullptr, &db,
                           &err) != HS_SUCCESS) {
    state.SkipWithError(err ? err->message : "hs_compile_lit_multi failed");
    hs_free_compile_error(err);
    return;
  }
  hs_scratch_t* scratch = nullptr;
  (void)hs_alloc_scratch(db, &scratch);
  std::size_t found = 0;
  for (auto _ : state) {
    found = 0;
    hs_scan(db, c.haystack.data(), static_cast<unsigned>(c.haystack.size()), 0, scratch,
            count_match, &found);
  }
  state.counters["matches"] = static_cast<double>(found);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.haystack.size()));
  hs_free_scratch(scratch);
  hs_free_database(db);
}
#endif

const char* preset_name(Preset p) {
  switch (p) {
    case Preset::Speed:
      return "Speed";
    case Preset::Balanced:
      return "Balanced";
    case Preset::MemoryEfficient:
      return "MemoryEfficient";
    default:
      return "Auto";
  }
}

const char* kind_name(MatchKind k) {
  switch (k) {
    case MatchKind::Overlapping:
      return "Overlapping";
    case MatchKind::LeftmostFirst:
      return "LeftmostFirst";
    default:
      return "LeftmostLongest";
  }
}

const int registered = [] {
  for (const Preset p : {Preset::Speed, Preset::Balanced, Preset::MemoryEfficient}) {
    const std::string name = preset_name(p);
    benchmark::RegisterBenchmark(("K1_Find/" + name).c_str(), K1, p, K1Op::Find)
        ->Arg(100)
        ->Arg(1000);
    benchmark::RegisterBenchmark(("K1_FindReuse/" + name).c_str(), K1, p, K1Op::FindReuse)
        ->Arg(100)
        ->Arg(1000);
    benchmark::RegisterBenchmark(("K1_FindSet/" + name).c_str(), K1, p, K1Op::FindSet)
        ->Arg(100)
        ->Arg(1000);
  }
  for (const bool korean : {false, true}) {
    const std::string lang = korean ? "ko" : "en";
    for (const Preset p : {Preset::Speed, Preset::Balanced, Preset::MemoryEfficient}) {
      for (const MatchKind k :
           {MatchKind::Overlapping, MatchKind::LeftmostFirst, MatchKind::LeftmostLongest}) {
        benchmark::RegisterBenchmark(
            ("K2_" + lang + "/" + preset_name(p) + "/" + kind_name(k)).c_str(), K2, korean, p, k,
            true)
            ->Arg(1000)
            ->Arg(10000)
            ->Arg(100000)
            ->Iterations(3)
            ->Unit(benchmark::kMillisecond);
      }
      // The plain twin of the interleaved overlapping scan (one walk).
      benchmark::RegisterBenchmark(
          ("K2_" + lang + "/" + preset_name(p) + "/OverlappingPlain").c_str(), K2, korean, p,
          MatchKind::Overlapping, false)
          ->Arg(1000)
          ->Arg(10000)
          ->Arg(100000)
          ->Iterations(3)
          ->Unit(benchmark::kMillisecond);
    }
#ifdef HERALD_BENCH_HYPERSCAN
    benchmark::RegisterBenchmark(("K2_" + lang + "/Hyperscan").c_str(), K2Hyperscan, korean)
        ->Arg(1000)
        ->Arg(10000)
        ->Arg(100000)
        ->Iterations(3)
        ->Unit(benchmark::kMillisecond);
#endif
    benchmark::RegisterBenchmark(("K2_" + lang + "/Naive1MiB").c_str(), K2Naive, korean)
        ->Arg(1000)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
