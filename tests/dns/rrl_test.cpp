// Response rate limiting: the limiter's arithmetic, and truncation to the
// question. A process test (server_test.cpp) checks it on the wire.
#include "dns/rrl.hpp"

#include <gtest/gtest.h>

#include <array>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using Action = RateLimiter::Action;

TEST(RateLimiter, RateThenSlipAndDropPerNetworkPerSecond) {
  RateLimiter rl(3, 2);
  std::uint8_t a[4] = {192, 0, 2, 1}, same_net[4] = {192, 0, 2, 200}, other[4] = {192, 0, 3, 1};
  std::vector<Action> got;
  for (int i = 0; i < 3; ++i) got.push_back(rl.check(a, 100));
  got.push_back(rl.check(same_net, 100));  // the same /24: the same bucket
  got.push_back(rl.check(a, 100));
  got.push_back(rl.check(a, 100));
  got.push_back(rl.check(a, 100));
  EXPECT_EQ(got, (std::vector<Action>{Action::send, Action::send, Action::send, Action::drop,
                                      Action::slip, Action::drop, Action::slip}));
  EXPECT_EQ(rl.check(other, 100), Action::send);  // another network
  EXPECT_EQ(rl.check(a, 101), Action::send);      // a new second
  std::uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1};
  std::uint8_t v6_same[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0xff};  // same /56
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rl.check(v6, 5), Action::send);
  EXPECT_EQ(rl.check(v6_same, 5), Action::drop);
}

// A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d. Keyed on their
// first 7 octets (all zero) every IPv4 client would share one bucket; they
// are keyed as their IPv4 /24, the same bucket as the plain IPv4 address.
TEST(RateLimiter, IPv4MappedAddressesAreTheirIPv4Network) {
  RateLimiter rl(2, 0);
  const auto mapped = [](std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
    return std::array<std::uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, a, b, c, d};
  };
  const auto busy = mapped(192, 0, 2, 1);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(rl.check(busy, 7), Action::send);
  EXPECT_EQ(rl.check(busy, 7), Action::drop);
  EXPECT_EQ(rl.check(mapped(198, 51, 100, 1), 7), Action::send);  // another /24
  EXPECT_EQ(rl.check(mapped(192, 0, 3, 1), 7), Action::send);     // the next /24
  EXPECT_EQ(rl.check(mapped(192, 0, 2, 99), 7), Action::drop);    // the busy /24
  std::uint8_t plain[4] = {192, 0, 2, 50};
  EXPECT_EQ(rl.check(plain, 7), Action::drop);  // one network, however it arrives
  // ::fffe:c000:201 is not mapped: an IPv6 /56 of its own.
  auto near_miss = mapped(192, 0, 2, 1);
  near_miss[11] = 0xFE;
  EXPECT_EQ(rl.check(near_miss, 7), Action::send);
}

TEST(RateLimiter, OffAndNoSlip) {
  RateLimiter off(0, 2);
  std::uint8_t a[4] = {10, 0, 0, 1};
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(off.check(a, 1), Action::send);
  EXPECT_FALSE(off.enabled());
  RateLimiter no_slip(1, 0);
  EXPECT_EQ(no_slip.check(a, 1), Action::send);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(no_slip.check(a, 1), Action::drop);
}

TEST(RateLimiter, TruncateToQuestion) {
  Message m;
  m.header.id = 3;
  m.header.qr = true;
  m.questions.push_back({test::name("www.example.com."), type::A, rrclass::IN});
  m.answers.push_back(test::rr("www.example.com.", "A", "192.0.2.1"));
  m.edns.emplace();
  auto wire = encode(m).value();
  truncate_to_question(wire);
  auto t = decode(wire);
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_TRUE(t->header.tc);
  EXPECT_EQ(t->header.id, 3);
  EXPECT_EQ(t->questions, m.questions);
  EXPECT_TRUE(t->answers.empty());
  EXPECT_FALSE(t->edns.has_value());
}

}  // namespace
}  // namespace herald::dns
