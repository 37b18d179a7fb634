// D2, the codec (docs/benchmarks.md): encode and decode of a plain A
// response, a DNSSEC response, and a name of 50 one-letter labels, with
// ns/op and heap bytes and allocations per message (a counting global
// operator new). Beside them, the twins this module chose between:
//  - SWAR vs plain ASCII folding and case-insensitive comparison;
//  - our suffix-hash compression map vs the obvious map keyed by lowercased
//    suffix strings (dns_erlang's starting point), on the same messages.
#include <benchmark/benchmark.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "dns/decoder.hpp"
#include "dns/detail/ascii.hpp"
#include "dns/detail/naive_compression.hpp"
#include "dns/detail/zone_lexer.hpp"
#include "dns/encoder.hpp"
#include "dns/rdata.hpp"
#include "support/alloc_counter.hpp"

namespace {

using namespace herald::dns;

// Allocations per message, from the shared counting operator new.
struct AllocScope {
  herald::test::AllocationScope scope;
  void report(benchmark::State& st) const {
    auto n = static_cast<double>(st.iterations());
    st.counters["allocs/msg"] = static_cast<double>(scope.count()) / n;
    st.counters["bytes/msg"] = static_cast<double>(scope.bytes()) / n;
  }
};

Name name(const std::string& s) {
  return Name::from_text(s).value();
}

Record rr(const std::string& owner, const char* type, const std::string& rdata) {
  Record r;
  r.owner = name(owner);
  r.type = type_from_text(type).value();
  r.ttl = 3600;
  r.rdata = rdata_from_text(r.type, detail::ZoneLexer::first_line(rdata).value(), Name()).value();
  return r;
}

Message plain_a() {
  Message m;
  m.header.id = 0x1234;
  m.header.qr = m.header.aa = m.header.rd = true;
  m.questions.push_back({name("www.example.com."), type::A, rrclass::IN});
  m.answers.push_back(rr("www.example.com.", "A", "192.0.2.1"));
  m.edns.emplace();
  return m;
}

// A typical signed answer: A + RRSIG (RSA-2048, 256-octet signature), the
// zone's two NS + RRSIG in authority, glue A/AAAA in additional, DO set.
Message dnssec() {
  std::string sig(344, 'A');  // base64 of 256 octets (258 with padding)
  sig.replace(342, 2, "==");
  Message m = plain_a();
  m.edns->dnssec_ok = true;
  std::string rrsig = " 8 3 3600 20261201000000 20261101000000 12345 example.com. " + sig;
  m.answers.push_back(rr("www.example.com.", "RRSIG", "A" + rrsig));
  m.authority.push_back(rr("example.com.", "NS", "ns1.example.com."));
  m.authority.push_back(rr("example.com.", "NS", "ns2.example.com."));
  m.authority.push_back(rr("example.com.", "RRSIG",
                           "NS 8 2 3600 20261201000000 20261101000000 12345 example.com. " + sig));
  m.additional.push_back(rr("ns1.example.com.", "A", "192.0.2.53"));
  m.additional.push_back(rr("ns1.example.com.", "AAAA", "2001:db8::53"));
  m.additional.push_back(rr("ns2.example.com.", "A", "192.0.2.54"));
  m.additional.push_back(rr("ns2.example.com.", "AAAA", "2001:db8::54"));
  return m;
}

std::string fifty_labels() {
  std::string s;
  for (int i = 0; i < 50; ++i) s += "a.";
  return s;
}

// The 50-label name as question and answer owner, and a sibling: the second
// and third occurrences compress to a pointer and to one label + pointer.
Message name50() {
  Message m;
  m.header.qr = true;
  m.questions.push_back({name(fifty_labels()), type::A, rrclass::IN});
  m.answers.push_back(rr(fifty_labels(), "A", "192.0.2.1"));
  m.answers.push_back(rr("b." + fifty_labels(), "A", "192.0.2.2"));
  return m;
}

Message make(int which) {
  return which == 0 ? plain_a() : which == 1 ? dnssec() : name50();
}
const char* kShapes[] = {"plain_a", "dnssec", "name50"};

void BM_Encode(benchmark::State& st) {
  Message m = make(static_cast<int>(st.range(0)));
  Encoder enc;
  std::vector<std::uint8_t> out;
  out.reserve(4096);
  AllocScope scope;
  for (auto _ : st) {
    auto r = enc.encode(m, out);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(out.data());
  }
  scope.report(st);
  st.counters["octets"] = static_cast<double>(out.size());
  st.SetLabel(kShapes[st.range(0)]);
}
BENCHMARK(BM_Encode)->DenseRange(0, 2);

void BM_Decode(benchmark::State& st) {
  Message m = make(static_cast<int>(st.range(0)));
  auto wire = encode(m).value();
  AllocScope scope;
  for (auto _ : st) {
    auto r = decode(wire);
    benchmark::DoNotOptimize(r);
  }
  scope.report(st);
  st.SetLabel(kShapes[st.range(0)]);
}
BENCHMARK(BM_Decode)->DenseRange(0, 2);

// Writing the names of the name50 message (question, owner, sibling owner):
// ours vs the naive map. Both must produce the same octets.
void BM_CompressNames(benchmark::State& st) {
  const bool naive = st.range(0) == 1;
  std::vector<Name> names = {name(fifty_labels()), name(fifty_labels()),
                             name("b." + fifty_labels())};
  std::vector<std::uint8_t> out;
  out.reserve(512);
  detail::CompressionMap map;
  detail::NaiveCompressor nc;
  AllocScope scope;
  for (auto _ : st) {
    out.assign(12, 0);
    if (naive) {
      nc.map.clear();
      for (const auto& n : names) nc.write_name(out, n);
    } else {
      map.clear();
      Writer w(out);
      for (const auto& n : names) map.write_name(w, n);
    }
    benchmark::DoNotOptimize(out.data());
  }
  scope.report(st);
  st.counters["octets"] = static_cast<double>(out.size());
  st.SetLabel(naive ? "naive lowercased-suffix map" : "suffix-hash map (ours)");
}
BENCHMARK(BM_CompressNames)->Arg(0)->Arg(1);

// ASCII folding of a wire name: SWAR vs plain, 17 octets (www.example.com.)
// and 101 octets (the 50-label name).
void BM_Fold(benchmark::State& st) {
  const bool swar = st.range(0) == 1;
  Name n = st.range(1) == 0 ? name("WWW.Example.COM.") : name(fifty_labels());
  std::uint8_t out[256];
  for (auto _ : st) {
    benchmark::DoNotOptimize(n);
    if (swar) {
      detail::fold_swar(n.wire().data(), out, n.wire_size());
    } else {
      detail::fold_plain(n.wire().data(), out, n.wire_size());
    }
    benchmark::DoNotOptimize(out);
  }
  st.SetLabel(std::string(swar ? "swar " : "plain ") + std::to_string(n.wire_size()) + " octets");
}
BENCHMARK(BM_Fold)->ArgsProduct({{0, 1}, {0, 1}});

void BM_IEqual(benchmark::State& st) {
  const bool swar = st.range(0) == 1;
  Name a = st.range(1) == 0 ? name("WWW.Example.COM.") : name(fifty_labels());
  Name b = a.lowercased();
  for (auto _ : st) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    bool eq = swar ? detail::iequal_swar(a.wire().data(), b.wire().data(), a.wire_size())
                   : detail::iequal_plain(a.wire().data(), b.wire().data(), a.wire_size());
    benchmark::DoNotOptimize(eq);
  }
  st.SetLabel(std::string(swar ? "swar " : "plain ") + std::to_string(a.wire_size()) + " octets");
}
BENCHMARK(BM_IEqual)->ArgsProduct({{0, 1}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
