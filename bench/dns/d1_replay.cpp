// The responder alone under D1's query mix (docs/benchmarks.md): loads the
// D1 zones, answers every query of the D1 query file in a loop on one
// thread (no sockets, no kernel), and prints CPU ns per query and heap
// allocations per query. What the UDP server adds is the kernel's send and
// receive; this isolates the part Herald's code decides, repeatably enough
// to profile (`perf record -- bench_dns_d1 DIR`) and to compare changes.
//
//   bench_dns_d1 DIR [--online] [--passes N] [--warmup N] [--cache-entries N]
//
// DIR is run.sh's input directory (build/bench-d1): DIR/zones and
// DIR/queries.bin (dnsperf -B format: a 2-octet length, then the message).
// `--warmup` passes (default 1) are answered untimed before the `--passes`
// timed ones (default 3).
//
// --online: D1-online (run.sh --online's build/bench-d1-online): the zones
// with keys in DIR/keys are signed at query time, loaded as heraldd loads
// them (KeyDirectory::scan, attach_keys, load_zones). No warm-up then by
// default, so pass 1 starts with the signature cache empty (its RRsets'
// first answers are misses: one P-256 signature each) and pass 2 finds it
// warm (hits); each pass prints its signing counts. `--cache-entries`
// sizes the cache (dns.signature_cache_entries; 0: every signed answer
// signs afresh, as Knot does). The clock is fixed, so no signature goes
// stale and the counts repeat from run to run.
//
// Instructions per query, per pass (callgrind, deterministic but for
// OpenSSL's random ECDSA nonces): when built with valgrind's headers, each
// pass is dumped as its own part, after one part for the load and warm-up:
//   valgrind --tool=callgrind --callgrind-out-file=cg.out bench_dns_d1 DIR --online --passes 2
//   grep -H '^summary:' cg.out.*   # cg.out.2: pass 1, cg.out.3: pass 2; divide by the queries
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/support/thread_cpu.hpp"
#include "dns/responder.hpp"
#include "dns/signing/key_directory.hpp"
#include "dns/zone_db.hpp"
#include "support/alloc_counter.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define D1_DUMP(what) CALLGRIND_DUMP_STATS_AT(what)
#define D1_ON_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#else
#define D1_DUMP(what) static_cast<void>(what)
#define D1_ON_VALGRIND() false
#endif

using namespace herald::dns;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: bench_dns_d1 DIR [--online] [--passes N] [--warmup N] "
               "[--cache-entries N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  bool online = false;
  int passes = 3, warmup = -1;
  long cache_entries = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--online") {
      online = true;
    } else if (i + 1 < argc && (a == "--passes" || a == "--warmup" || a == "--cache-entries")) {
      const long v = std::atol(argv[++i]);
      if (v < 0) return usage();
      if (a == "--passes") passes = static_cast<int>(v);
      if (a == "--warmup") warmup = static_cast<int>(v);
      if (a == "--cache-entries") cache_entries = v;
    } else if (a.rfind("--", 0) != 0 && dir.empty()) {
      dir = a;
    } else {
      return usage();
    }
  }
  if (dir.empty()) return usage();
  if (warmup < 0) warmup = online ? 0 : 1;

  std::vector<ZoneError> errors;
  auto sources = zone_directory(dir + "/zones", errors);
  std::size_t online_zones = 0;
  if (online) {
    auto keys = signing::KeyDirectory::scan(dir + "/keys", errors);
    signing::attach_keys(keys, sources, errors);
    for (const auto& s : sources) online_zones += s.online != nullptr;
    if (online_zones == 0) {
      for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
      std::fprintf(stderr,
                   "bench_dns_d1: no zone of %s/zones has keys in %s/keys "
                   "(run bench/dns/d1/run.sh --online once)\n",
                   dir.c_str(), dir.c_str());
      return 1;
    }
  }
  DbLoad load = load_zones(sources);
  for (const auto& e : load.errors) errors.push_back(e);
  for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
  if (online && !errors.empty()) {
    // A pre-signed D1 directory has keys too, but its zones hold RRSIGs:
    // they would be left out, and the figures be for the rest.
    std::fprintf(stderr,
                 "bench_dns_d1: %zu errors; --online wants run.sh --online's inputs "
                 "(build/bench-d1-online)\n",
                 errors.size());
    return 1;
  }
  if (!load.db || load.db->size() == 0) {
    std::fprintf(stderr, "bench_dns_d1: no zones in %s/zones (run bench/dns/d1/run.sh once)\n",
                 dir.c_str());
    return 1;
  }
  std::ifstream in(dir + "/queries.bin", std::ios::binary);
  std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
  std::vector<std::span<const std::uint8_t>> queries;
  for (std::size_t at = 0; at + 2 <= file.size();) {
    std::size_t n = static_cast<std::size_t>(file[at] << 8 | file[at + 1]);
    if (at + 2 + n > file.size()) break;
    queries.emplace_back(file.data() + at + 2, n);
    at += 2 + n;
  }
  if (queries.empty()) {
    std::fprintf(stderr, "bench_dns_d1: no queries in %s/queries.bin\n", dir.c_str());
    return 1;
  }
  ResponderOptions options;
  if (cache_entries >= 0)
    options.signatures.cache_entries = static_cast<std::size_t>(cache_entries);
  Responder r(options);
  std::vector<std::uint8_t> out;
  out.reserve(65535);
  std::uint8_t client_ip[4] = {127, 0, 0, 1};
  // A fixed clock: signatures never go stale between passes.
  Client client{{client_ip, 4}, 1'700'000'000};
  std::size_t octets = 0, truncated = 0;
  for (int w = 0; w < warmup; ++w) {
    for (auto q : queries) r.respond(*load.db, q, Transport::udp, out, false, client);
  }
  const bool callgrind = D1_ON_VALGRIND();
  D1_DUMP("load and warm-up");
  for (int p = 0; p < passes; ++p) {
    herald::test::AllocationScope allocs;
    std::uint64_t signed_answers = 0, hits = 0, misses = 0, stale = 0, signatures = 0, failures = 0;
    // CPU time of this thread, not wall time: the machine is shared, and
    // time slices lost to other processes must not count.
    double start = herald::bench::thread_cpu_ns();
    for (auto q : queries) {
      Outcome o = r.respond(*load.db, q, Transport::udp, out, false, client);
      octets += out.size();
      truncated += o.truncated;
      const signing::SigningCounts& s = o.signing;
      signed_answers += (s.hits + s.misses + s.stale) != 0;
      hits += s.hits;
      misses += s.misses;
      stale += s.stale;
      signatures += s.signatures;
      failures += s.failures;
    }
    double ns = herald::bench::thread_cpu_ns() - start;
    D1_DUMP(("pass " + std::to_string(p + 1)).c_str());
    const double n = static_cast<double>(queries.size());
    std::printf("pass %d: %zu queries, %.1f ns/query, %.3f allocations/query\n", p + 1,
                queries.size(), ns / n, static_cast<double>(allocs.count()) / n);
    if (online) {
      std::printf(
          "  signing: %llu answers signed, RRsets %llu hits, %llu misses, %llu stale "
          "(hit rate %.1f%%), %llu signatures (%.4f per query), %llu failures\n",
          static_cast<unsigned long long>(signed_answers), static_cast<unsigned long long>(hits),
          static_cast<unsigned long long>(misses), static_cast<unsigned long long>(stale),
          hits + misses + stale
              ? 100.0 * static_cast<double>(hits) / static_cast<double>(hits + misses + stale)
              : 0.0,
          static_cast<unsigned long long>(signatures), static_cast<double>(signatures) / n,
          static_cast<unsigned long long>(failures));
    }
  }
  const double answers = static_cast<double>(queries.size()) * passes;
  std::printf("mean answer %.1f octets, %zu truncated, %zu zones",
              answers > 0 ? static_cast<double>(octets) / answers : 0.0, truncated,
              load.db->size());
  if (online) {
    std::printf(", %zu signed online, signature cache %zu entries", online_zones,
                options.signatures.cache_entries);
  }
  std::printf("\n");
  if (callgrind) {
    std::printf("callgrind: part 1 is the load and warm-up, part p + 1 is pass p (%zu queries)\n",
                queries.size());
  }
  return 0;
}
