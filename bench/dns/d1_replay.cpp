// The responder alone under D1's query mix (docs/benchmarks.md): loads the
// D1 zones, answers every query of the D1 query file in a loop on one
// thread (no sockets, no kernel), and prints CPU ns per query and heap
// allocations per query. What the UDP server adds is the kernel's send and
// receive; this isolates the part Herald's code decides, repeatably enough
// to profile (`perf record -- bench_dns_d1 DIR`) and to compare changes.
//
//   bench_dns_d1 DIR [--passes N]
//
// DIR is run.sh's input directory (build/bench-d1): DIR/zones and
// DIR/queries.bin (dnsperf -B format: a 2-octet length, then the message).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dns/responder.hpp"
#include "dns/zone_db.hpp"
#include "support/alloc_counter.hpp"

using namespace herald::dns;

namespace {

double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_dns_d1 DIR [--passes N]\n");
    return 2;
  }
  const std::string dir = argv[1];
  int passes = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--passes") passes = std::atoi(argv[i + 1]);
  }
  std::vector<ZoneError> errors;
  auto sources = zone_directory(dir + "/zones", errors);
  DbLoad load = load_zones(sources);
  for (const auto& e : load.errors) errors.push_back(e);
  for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
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
  Responder r;
  std::vector<std::uint8_t> out;
  out.reserve(65535);
  std::uint8_t client_ip[4] = {127, 0, 0, 1};
  Client client{{client_ip, 4}, 1'700'000'000};
  std::size_t octets = 0, truncated = 0;
  for (auto q : queries) r.respond(*load.db, q, Transport::udp, out, false, client);  // warm-up
  for (int p = 0; p < passes; ++p) {
    herald::test::AllocationScope allocs;
    // CPU time of this thread, not wall time: the machine is shared, and
    // time slices lost to other processes must not count.
    double start = cpu_ns();
    for (auto q : queries) {
      Outcome o = r.respond(*load.db, q, Transport::udp, out, false, client);
      octets += out.size();
      truncated += o.truncated;
    }
    double ns = cpu_ns() - start;
    std::printf("pass %d: %zu queries, %.1f ns/query, %.3f allocations/query\n", p + 1,
                queries.size(), ns / static_cast<double>(queries.size()),
                static_cast<double>(allocs.count()) / static_cast<double>(queries.size()));
  }
  std::printf("mean answer %.1f octets, %zu truncated, %zu zones\n",
              static_cast<double>(octets) / static_cast<double>(queries.size() * passes), truncated,
              load.db->size());
  return 0;
}
