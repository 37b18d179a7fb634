// The budget types of gateway/limits/ on their own: the token bucket's
// arithmetic with a clock the test moves, and what counts as one address.
#include <gtest/gtest.h>

#include "core/metrics/registry.hpp"
#include "gateway/limits/connections_per_ip.hpp"
#include "gateway/limits/room_budget.hpp"
#include "gateway/limits/room_rates.hpp"
#include "gateway/limits/token_bucket.hpp"

namespace herald::gateway {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

int takes(limits::TokenBucket& b, std::int64_t now, int tries) {
  int n = 0;
  for (int i = 0; i < tries; ++i) n += b.take(now) ? 1 : 0;
  return n;
}

TEST(TokenBucket, ABurstThenTheRate) {
  limits::TokenBucket b(10, 50, 0);
  EXPECT_EQ(takes(b, 0, 100), 50);              // the burst, at once
  EXPECT_EQ(takes(b, kSecond / 2, 100), 5);     // half a second at 10/s
  EXPECT_EQ(takes(b, 100 * kSecond, 100), 50);  // refills to the burst, no more
}

TEST(TokenBucket, AClockGoingBackwardsAddsNothing) {
  limits::TokenBucket b(10, 1, 5 * kSecond);
  EXPECT_TRUE(b.take(5 * kSecond));
  EXPECT_FALSE(b.take(4 * kSecond));
  EXPECT_FALSE(b.take(5 * kSecond));
  EXPECT_TRUE(b.take(5 * kSecond + kSecond / 10));
}

TEST(RoomRates, ARoomsRateSurvivesItsStateAndFullBucketsAreForgotten) {
  limits::RoomRates rates;
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(rates.take("big", 5, 0));
  EXPECT_FALSE(rates.take("big", 5, 0));  // the room's burst is spent, whatever its state did
  // A churn over fresh names: the map stays near the names of the last
  // second, not all of them.
  std::int64_t now = 0;
  for (int i = 0; i < 100'000; ++i) {
    now += kSecond / 1000;  // 1,000 names a second
    EXPECT_TRUE(rates.take("fresh-" + std::to_string(i), 5, now));
  }
  EXPECT_LE(rates.size(), 4096u);
}

TEST(RoomBudget, HoldsAtMostTheCapAndCountsRefusals) {
  metrics::Registry registry;
  limits::RoomBudget budget(2, registry);
  EXPECT_TRUE(budget.try_acquire());
  EXPECT_TRUE(budget.try_acquire());
  EXPECT_FALSE(budget.try_acquire());
  budget.release();
  EXPECT_TRUE(budget.try_acquire());
  EXPECT_EQ(budget.held(), 2u);
  EXPECT_EQ(budget.refusal("x").code, protocol::ErrorCode::too_many_rooms);
  const std::string text = registry.render();
  EXPECT_NE(text.find("herald_rooms 2"), std::string::npos) << text;
  EXPECT_NE(text.find("herald_rooms_refused_total 1"), std::string::npos) << text;
}

boost::asio::ip::address ip(const char* text) {
  return boost::asio::ip::make_address(text);
}

TEST(ConnectionsPerIp, CountsPerAddressAndGivesSlotsBack) {
  limits::ConnectionsPerIp limit(2, true);
  auto a1 = limit.try_acquire(ip("192.0.2.1"));
  auto a2 = limit.try_acquire(ip("192.0.2.1"));
  ASSERT_TRUE(a1 && a2);
  EXPECT_FALSE(limit.try_acquire(ip("192.0.2.1")));
  EXPECT_TRUE(limit.try_acquire(ip("192.0.2.2")));  // another address; released at once
  // An IPv4-mapped IPv6 address is the same client.
  EXPECT_FALSE(limit.try_acquire(ip("::ffff:192.0.2.1")));
  { auto moved = std::move(*a1); }  // a lease moved away releases once, where it ends
  EXPECT_EQ(limit.held(ip("192.0.2.1")), 1u);
  EXPECT_TRUE(limit.try_acquire(ip("192.0.2.1")));
}

TEST(ConnectionsPerIp, AnIpv6HostIsItsSlash64) {
  limits::ConnectionsPerIp limit(2, true);
  auto a = limit.try_acquire(ip("2001:db8:1:2::1"));
  auto b = limit.try_acquire(ip("2001:db8:1:2:ffff::9"));
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(limit.try_acquire(ip("2001:db8:1:2:abcd::1")));  // same /64
  EXPECT_TRUE(limit.try_acquire(ip("2001:db8:1:3::1")));        // next /64
}

TEST(ConnectionsPerIp, LoopbackIsExemptOnlyWhenAsked) {
  limits::ConnectionsPerIp exempt(1, true);
  std::vector<limits::ConnectionsPerIp::Lease> held;
  for (int i = 0; i < 5; ++i) {
    auto l = exempt.try_acquire(ip(i % 2 ? "127.0.0.1" : "::1"));
    ASSERT_TRUE(l);
    held.push_back(std::move(*l));
  }
  EXPECT_EQ(exempt.held(ip("127.0.0.1")), 0u);
  limits::ConnectionsPerIp counted(1, false);
  auto first = counted.try_acquire(ip("127.0.0.1"));
  ASSERT_TRUE(first);
  EXPECT_FALSE(counted.try_acquire(ip("127.0.0.1")));
}

}  // namespace
}  // namespace herald::gateway
