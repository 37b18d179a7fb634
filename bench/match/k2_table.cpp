// bench_match_k2: the K2 table of docs/benchmarks.md, herald::match against
// both of its peers in one run, English and Korean.
//
// Rows: language (en, ko) x dictionary size (1,000 / 10,000 / 100,000 words)
// x match kind. The overlapping kind (every occurrence) runs herald::match
// against Hyperscan and the aho-corasick crate's DFA; the leftmost kinds
// against the crate alone (Hyperscan's literal API has no leftmost mode).
// The corpora are bench_match's (corpus.hpp).
//
// Timing. One scan is the whole haystack into a reused match buffer (for
// herald::match) or a count (the peers), measured in the thread's CPU time.
// A round scans every engine of the row `--scans` times, one engine after
// another, and keeps each engine's best; `--rounds` rounds alternate the
// engines again, so that drift in the machine (another process, frequency)
// falls on all of them. Printed: each engine's best MB/s over the rounds,
// and the range over rounds of herald's best / the peer's best in the same
// round. A ratio above 1.0 means herald::match is faster.
//
// Counts. Every engine of a row must find the same number of matches; a row
// where they differ is printed with the counts and the run exits 1.
//
// Memory. herald::match's stats().memory_bytes (automaton and pattern
// tables), Hyperscan's hs_database_size, the crate's heap_bytes().
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/support/thread_cpu.hpp"
#include "corpus.hpp"
#include "crate_peer.hpp"
#include "hyperscan_peer.hpp"
#include "match/matcher.hpp"

namespace {

using herald::bench::CratePeer;
using herald::bench::HyperscanPeer;
using herald::match::Match;
using herald::match::Matcher;
using herald::match::MatchKind;
using herald::match::Options;
using herald::match::Preset;

struct Settings {
  std::vector<std::string> langs{"en", "ko"};
  std::vector<int> sizes{1000, 10000, 100000};
  std::vector<std::string> kinds{"overlapping", "leftmost-first", "leftmost-longest"};
  std::string preset = "speed";
  int rounds = 3;
  int scans = 3;
  std::size_t haystack_mib = 32;
  bool flat_twin = false;
  std::size_t dense_table_bytes = herald::match::Options{}.dense_table_bytes;
};

// One engine of a row: a scan that returns its match count, and its bytes.
struct Engine {
  Engine(std::string n, std::function<std::uint64_t()> s, std::size_t b)
      : name(std::move(n)), scan(std::move(s)), bytes(b) {}
  std::string name;
  std::function<std::uint64_t()> scan;
  std::size_t bytes = 0;
  double best_ns = std::numeric_limits<double>::infinity();
  std::vector<double> round_best_ns;
  std::uint64_t matches = 0;
};

std::string mb(std::size_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", static_cast<double>(bytes) / 1e6);
  return b;
}

std::string mbps(std::size_t haystack, double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", static_cast<double>(haystack) / ns * 1e3);
  return b;
}

// "0.97–1.05×" over the rounds, herald (engines[0]) against engines[peer].
std::string ratio_range(const std::vector<Engine>& engines, std::size_t peer) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  for (std::size_t r = 0; r < engines[0].round_best_ns.size(); ++r) {
    const double x = engines[peer].round_best_ns[r] / engines[0].round_best_ns[r];
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  char b[48];
  std::snprintf(b, sizeof b, "%.2f–%.2f×", lo, hi);
  return b;
}

// Runs one row; false when the engines' counts differ.
bool run_row(const Settings& s, const std::string& lang, int size, const std::string& kind_name) {
  const auto& corpus = herald::bench::k2_corpus(lang == "ko", s.haystack_mib << 20);
  const auto& dict = corpus.dicts.at(size);
  const std::string_view text = corpus.haystack;
  const MatchKind kind = herald::match::kind_named(kind_name).value_or(MatchKind::Overlapping);

  const Options options{.preset = herald::match::preset_named(s.preset).value_or(Preset::Speed),
                        .kind = kind,
                        .dense_table_bytes = s.dense_table_bytes};
  const auto m = Matcher::build(dict, options);
  // The same preset with every table flat (Options::dense_table_bytes), as
  // a fourth engine where herald's table has sparse rows.
  std::optional<Matcher> flat;
  if (s.flat_twin && m.stats().sparse_states > 0) {
    Options o = options;
    o.dense_table_bytes = SIZE_MAX;
    flat.emplace(Matcher::build(dict, o));
  }
  std::vector<Match> out;
  std::optional<HyperscanPeer> hs;
  if (kind == MatchKind::Overlapping) hs.emplace(dict);
  const CratePeer crate(dict, kind);

  std::vector<Engine> engines;
  engines.emplace_back(
      "herald",
      [&] {
        m.find(text, out);
        return static_cast<std::uint64_t>(out.size());
      },
      m.stats().memory_bytes);
  if (hs)
    engines.emplace_back(
        "Hyperscan", [&] { return hs->count(text); }, hs->memory_bytes());
  engines.emplace_back(
      "aho-corasick", [&] { return crate.count(text); }, crate.memory_bytes());
  if (flat)
    engines.emplace_back(
        "herald-flat",
        [&] {
          flat->find(text, out);
          return static_cast<std::uint64_t>(out.size());
        },
        flat->stats().memory_bytes);

  for (int r = 0; r < s.rounds; ++r) {
    for (Engine& e : engines) {
      double best = std::numeric_limits<double>::infinity();
      for (int i = 0; i < s.scans; ++i) {
        const double t0 = herald::bench::thread_cpu_ns();
        e.matches = e.scan();
        best = std::min(best, herald::bench::thread_cpu_ns() - t0);
      }
      e.round_best_ns.push_back(best);
      e.best_ns = std::min(e.best_ns, best);
    }
  }

  bool same = true;
  for (const Engine& e : engines) same = same && e.matches == engines[0].matches;
  std::ostringstream row;
  row << "| " << lang << " | " << size << " | " << kind_name << " | ";
  for (const Engine& e : engines) row << e.name << ' ' << mbps(text.size(), e.best_ns) << "; ";
  row << "| ";
  for (std::size_t i = 1; i < engines.size(); ++i) {
    row << engines[i].name << ' ' << ratio_range(engines, i) << "; ";
  }
  row << "| ";
  for (const Engine& e : engines) row << e.name << ' ' << mb(e.bytes) << "; ";
  row << "| " << engines[0].matches << (same ? "" : " **COUNTS DIFFER**");
  if (!same) {
    for (const Engine& e : engines) row << ' ' << e.name << '=' << e.matches;
  }
  row << " |  (crate ids " << crate.state_id_bytes() << " B, herald states " << m.stats().states
      << " (" << m.stats().sparse_states << " sparse), classes " << m.stats().byte_classes << ")";
  std::printf("%s\n", row.str().c_str());
  std::fflush(stdout);
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  CLI::App app{
      "The K2 table of docs/benchmarks.md: herald::match against Hyperscan (overlapping) and "
      "the aho-corasick crate's DFA (every kind), English and Korean, in one run. Prints one "
      "Markdown row per language x dictionary size x kind: best MB/s of each engine, the range "
      "over rounds of herald's speed over each peer's (above 1.0: herald is faster), each "
      "engine's memory (MB) and the match count, which every engine must agree on (exit 1 "
      "if not). Run it on a quiet machine."};
  app.add_option("--lang", s.langs, "languages: en, ko")->check(CLI::IsMember({"en", "ko"}));
  app.add_option("--sizes", s.sizes, "dictionary sizes")
      ->check(CLI::IsMember({1000, 10000, 100000}));
  app.add_option("--kinds", s.kinds, "match kinds")
      ->check(CLI::IsMember({"overlapping", "leftmost-first", "leftmost-longest"}));
  app.add_option("--preset", s.preset, "herald::match preset")
      ->check(CLI::IsMember({"speed", "balanced", "memory"}));
  app.add_option("--rounds", s.rounds, "rounds alternating the engines")->check(CLI::Range(1, 100));
  app.add_option("--scans", s.scans, "scans per engine per round (best kept)")
      ->check(CLI::Range(1, 100));
  app.add_flag("--flat-twin", s.flat_twin,
               "on rows where herald's table has sparse rows (Options::dense_table_bytes), "
               "also time the same preset with a flat table, as engine herald-flat");
  app.add_option("--dense-table-bytes", s.dense_table_bytes,
                 "herald's Options::dense_table_bytes (the Speed table's budget)");
  app.add_option("--haystack-mib", s.haystack_mib, "haystack size (MiB); 32 is the K2 size")
      ->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);

  std::printf(
      "| lang | words | kind | best MB/s | herald over peer (range over %d rounds) | "
      "memory MB | matches |\n|---|---|---|---|---|---|---|\n",
      s.rounds);
  bool all_same = true;
  for (const std::string& lang : s.langs) {
    for (const int size : s.sizes) {
      for (const std::string& kind : s.kinds) all_same = run_row(s, lang, size, kind) && all_same;
    }
  }
  if (!all_same) {
    std::fprintf(stderr, "bench_match_k2: the engines' match counts differ (rows above)\n");
    return 1;
  }
  return 0;
}
