// Allocations per message, pinned (docs/benchmarks.md D2 reports the same
// counts from bench_dns). The counting global operator new
// (herald_alloc_counter) sees every heap allocation of this test binary;
// each test counts only around the call.
#include <gtest/gtest.h>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "support/alloc_counter.hpp"
#include "test_util.hpp"

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
  const herald::test::AllocationScope scope;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(enc.encode(m, out, {512, true}));
  EXPECT_EQ(scope.count(), 0u);
}

TEST(Allocations, DecodeAllocatesOncePerSectionAndPerRdata) {
  Message m = signed_response();
  auto wire = encode(m).value();
  const herald::test::AllocationScope scope;
  auto back = decode(wire);
  const std::uint64_t n = scope.count();
  ASSERT_TRUE(back);
  // questions, answers, authority: one each; additional grows once (its
  // OPT is not a Record); one per record's RDATA (5).
  EXPECT_EQ(n, 3u + 1u + 5u);
}

}  // namespace
}  // namespace herald::dns
