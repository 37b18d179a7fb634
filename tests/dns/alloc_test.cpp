// Allocations per message, pinned (docs/benchmarks.md D2 reports the same
// counts from bench_dns). A counting global operator new sees every heap
// allocation of this test binary; each test counts only around the call.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "test_util.hpp"

namespace {
std::atomic<std::size_t> g_allocs{0};
}  // namespace

// GCC 12 flags malloc/free inside replaced global operators as mismatched;
// they match by construction (every new below mallocs, every delete frees).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace herald::dns {
namespace {

using test::name;
using test::rr;

Message signed_response() {
  Message m;
  m.header.qr = true;
  m.questions.push_back({name("www.example.com."), type::A, rrclass::IN});
  m.answers.push_back(rr("www.example.com.", "A", "192.0.2.1"));
  m.answers.push_back(rr("www.example.com.", "RRSIG",
                         "A 8 3 3600 20261201000000 20261101000000 1 example.com. AQIDBA=="));
  m.authority.push_back(rr("example.com.", "NS", "ns1.example.com."));
  m.authority.push_back(rr("example.com.", "NS", "ns2.example.com."));
  m.additional.push_back(rr("ns1.example.com.", "A", "192.0.2.53"));
  m.edns.emplace();
  m.edns->dnssec_ok = true;
  return m;
}

TEST(Allocations, SteadyStateEncodeAllocatesNothing) {
  Message m = signed_response();
  Encoder enc;
  std::vector<std::uint8_t> out;
  ASSERT_TRUE(enc.encode(m, out));  // first call sizes the buffer
  std::size_t before = g_allocs.load();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(enc.encode(m, out, {512, true}));
  EXPECT_EQ(g_allocs.load() - before, 0u);
}

TEST(Allocations, DecodeAllocatesOncePerSectionAndPerRdata) {
  Message m = signed_response();
  auto wire = encode(m).value();
  std::size_t before = g_allocs.load();
  auto back = decode(wire);
  std::size_t n = g_allocs.load() - before;
  ASSERT_TRUE(back);
  // questions, answers, authority: one each; additional grows once (its
  // OPT is not a Record); one per record's RDATA (5).
  EXPECT_EQ(n, 3u + 1u + 5u);
}

}  // namespace
}  // namespace herald::dns
