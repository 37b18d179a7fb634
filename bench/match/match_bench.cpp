// K1 and K2 of docs/benchmarks.md for herald::match.
//
// K1 (ACOR's shape): keywords keyword0..keyword{N-1}, N = 100 and 1000; the
// text "the quick brown keyword50 fox keyword99 jumps over the lazy dog "
// repeated 10 times (640 bytes). find (a fresh result vector per call, as
// ACOR's Find returns a new slice), find into a reused buffer, and find_set,
// for each preset; counters: allocations per op.
//
// K2: the English and Korean corpora of corpus.hpp. Each preset x kind
// reports MB/s, matches per run and the automaton's bytes; the peers run on
// the same dictionary and haystack: Hyperscan (literal mode, all matches: the
// overlapping semantics) and the aho-corasick crate's DFA (every kind); the
// naive reference runs on the first 1 MiB (it is quadratic in dictionary
// size) as the floor. bench_match_k2 (k2_table.cpp) is the table of herald
// against both peers with the counts compared; this is the wider view.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "corpus.hpp"
#include "match/matcher.hpp"
#include "match/naive.hpp"
#include "support/alloc_counter.hpp"
#ifdef HERALD_BENCH_HYPERSCAN
#include "hyperscan_peer.hpp"
#endif
#ifdef HERALD_BENCH_CRATE
#include "crate_peer.hpp"
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

const herald::bench::Corpus& corpus(bool korean) {
  return herald::bench::k2_corpus(korean);
}

void K2(benchmark::State& state, bool korean, Preset preset, MatchKind kind, bool interleave) {
  const auto& c = corpus(korean);
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
  const auto& c = corpus(korean);
  const auto& dict = c.dicts.at(static_cast<int>(state.range(0)));
  const NaiveMatcher naive(dict, Options{});
  const std::string_view text = std::string_view(c.haystack).substr(0, 1u << 20);
  std::size_t found = 0;
  for (auto _ : state) found = naive.find(text).size();
  state.counters["matches"] = static_cast<double>(found);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

// A peer's scan of the K2 haystack: `Peer(dict, args...)`, `count(text)`
// and `memory_bytes()` (hyperscan_peer.hpp, crate_peer.hpp).
template <class Peer, class... Args>
void K2Peer(benchmark::State& state, bool korean, Args... args) {
  const auto& c = corpus(korean);
  const Peer peer(c.dicts.at(static_cast<int>(state.range(0))), args...);
  std::uint64_t found = 0;
  for (auto _ : state) found = peer.count(c.haystack);
  state.counters["matches"] = static_cast<double>(found);
  state.counters["memory_MB"] = static_cast<double>(peer.memory_bytes()) / 1e6;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.haystack.size()));
}

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

// Every K2 benchmark: the three dictionary sizes, three scans each.
void k2_sizes(benchmark::internal::Benchmark* b) {
  b->Arg(1000)->Arg(10000)->Arg(100000)->Iterations(3)->Unit(benchmark::kMillisecond);
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
            ->Apply(k2_sizes);
      }
      // The plain twin of the interleaved overlapping scan (one walk).
      benchmark::RegisterBenchmark(
          ("K2_" + lang + "/" + preset_name(p) + "/OverlappingPlain").c_str(), K2, korean, p,
          MatchKind::Overlapping, false)
          ->Apply(k2_sizes);
    }
#ifdef HERALD_BENCH_CRATE
    for (const MatchKind k :
         {MatchKind::Overlapping, MatchKind::LeftmostFirst, MatchKind::LeftmostLongest}) {
      benchmark::RegisterBenchmark(("K2_" + lang + "/AhoCorasickCrate/" + kind_name(k)).c_str(),
                                   K2Peer<herald::bench::CratePeer, MatchKind>, korean, k)
          ->Apply(k2_sizes);
    }
#endif
#ifdef HERALD_BENCH_HYPERSCAN
    benchmark::RegisterBenchmark(("K2_" + lang + "/Hyperscan").c_str(),
                                 K2Peer<herald::bench::HyperscanPeer>, korean)
        ->Apply(k2_sizes);
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
