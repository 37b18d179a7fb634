// NOTIFY retries (docs/dns.md, "Zone transfer"): the Notifier resends a
// NOTIFY until the secondary answers with its ID, at most five times, and
// counts what it sent, what was answered and what never was. The
// secondaries are UDP sockets of this test (server/fake_secondary.hpp): one
// stays silent, one answers the second try. heraldd's metrics read these
// counters (tests/dns/server/notify_metrics_test.cpp).
#include "dns/server/notifier.hpp"

#include <gtest/gtest.h>

#include <boost/asio/ip/address.hpp>

#include "dns/zone.hpp"
#include "dns/zone_parser.hpp"
#include "server/fake_secondary.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using namespace std::chrono_literals;
using boost::asio::ip::udp;

std::shared_ptr<const Zone> zone(const char* origin) {
  ZoneOptions opt;
  opt.origin = test::name(origin);
  ZoneLoad z = build_zone(
      opt.origin,
      parse_zone_text("$TTL 60\n@ SOA ns hm 7 3600 600 86400 60\n@ NS ns\nns A 192.0.2.1\n",
                      "n.zone", opt));
  EXPECT_TRUE(z.zone) << (z.errors.empty() ? "" : z.errors.front().to_string());
  return z.zone;
}

udp::endpoint at(const test::FakeSecondary& s) {
  return {boost::asio::ip::make_address("127.0.0.1"), s.port()};
}

// Unanswered, every NOTIFY goes out five times and then counts as failed.
// The interval is short: nothing is waited for but silence.
TEST(Notifier, GivesUpAfterFiveTriesWhenUnanswered) {
  test::FakeSecondary silent(0);
  ASSERT_TRUE(silent.bound());
  Notifier notifier({at(silent)}, 5, 10ms);
  notifier.notify({zone("a.test."), zone("b.test.")});
  notifier.join();  // the round is over: every count is final
  silent.stop();

  ASSERT_EQ(silent.received().size(), 2u);  // one ID per (zone, secondary)
  for (const auto& [id, count] : silent.received()) EXPECT_EQ(count, 5u) << "id " << id;
  EXPECT_EQ(silent.other(), 0u);
  EXPECT_EQ(notifier.sent(), 10u);
  EXPECT_EQ(notifier.acknowledged(), 0u);
  EXPECT_EQ(notifier.failed(), 2u);
}

// Answered on the second try, the NOTIFY is not sent again and counts as
// acknowledged. The interval is the bound for the answer to arrive in, so it
// is generous; the round ends as soon as the answer comes.
TEST(Notifier, StopsRetryingOnceTheSecondaryAnswers) {
  test::FakeSecondary answers_second(2);
  ASSERT_TRUE(answers_second.bound());
  Notifier notifier({at(answers_second)}, 5, 2s);
  notifier.notify({zone("a.test.")});
  notifier.join();
  answers_second.stop();

  ASSERT_EQ(answers_second.received().size(), 1u);
  EXPECT_EQ(answers_second.received().begin()->second, 2u);
  EXPECT_EQ(answers_second.other(), 0u);
  EXPECT_EQ(notifier.sent(), 2u);
  EXPECT_EQ(notifier.acknowledged(), 1u);
  EXPECT_EQ(notifier.failed(), 0u);
}

}  // namespace
}  // namespace herald::dns
