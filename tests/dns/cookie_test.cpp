// DNS cookies: SipHash-2-4 against its paper, the RFC 9018 server cookie
// against the RFC's example, the lifetime window, and the responder's use.
#include "dns/cookie.hpp"

#include <gtest/gtest.h>

#include "dns/decoder.hpp"
#include "dns/detail/siphash.hpp"
#include "dns/encoder.hpp"
#include "dns/responder.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using test::unhex;

CookieSecret secret_of(const std::string& hex) {
  auto b = unhex(hex);
  CookieSecret s{};
  std::copy(b.begin(), b.end(), s.begin());
  return s;
}

TEST(Cookie, SipHashPaperVector) {
  // Aumasson and Bernstein, "SipHash: a fast short-input PRF", appendix A:
  // key 00..0f, message 00..0e.
  std::array<std::uint8_t, 16> key;
  for (int i = 0; i < 16; ++i) key[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> msg(15);
  for (int i = 0; i < 15; ++i) msg[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(detail::siphash24(key, msg), 0xa129ca6149be45e5ULL);
  EXPECT_EQ(detail::siphash24(key, {}), 0x726fdb47dd0e0e31ULL);  // the empty message
}

TEST(Cookie, Rfc9018ExampleA1) {
  // RFC 9018 Appendix A.1: client 198.51.100.100, client cookie
  // 2464c4abcf10c957, secret e5e973e5a6b2a43f48e7dc849e37bfcf, at
  // 2019-06-05 10:53:05 UTC.
  auto client_cookie = unhex("2464c4abcf10c957");
  std::uint8_t ip[4] = {198, 51, 100, 100};
  CookieSecret secret = secret_of("e5e973e5a6b2a43f48e7dc849e37bfcf");
  ServerCookie c = make_server_cookie(client_cookie, ip, 1559731985, secret);
  EXPECT_EQ(test::hex(c), "010000005cf79f111f8130c3eee29480");
  EXPECT_TRUE(valid_server_cookie(client_cookie, c, ip, 1559731985, secret));
}

TEST(Cookie, ValidityWindowAddressAndClientCookie) {
  auto cc = unhex("0102030405060708");
  std::uint8_t ip[4] = {192, 0, 2, 1};
  std::uint8_t other_ip[4] = {192, 0, 2, 2};
  CookieSecret secret = secret_of("000102030405060708090a0b0c0d0e0f");
  const std::uint32_t t = 1'700'000'000;
  ServerCookie c = make_server_cookie(cc, ip, t, secret);
  EXPECT_TRUE(valid_server_cookie(cc, c, ip, t + 3600, secret));   // an hour old
  EXPECT_FALSE(valid_server_cookie(cc, c, ip, t + 3601, secret));  // older
  EXPECT_TRUE(valid_server_cookie(cc, c, ip, t - 300, secret));    // five minutes ahead
  EXPECT_FALSE(valid_server_cookie(cc, c, ip, t - 301, secret));
  EXPECT_FALSE(valid_server_cookie(cc, c, other_ip, t, secret));
  EXPECT_FALSE(valid_server_cookie(unhex("0102030405060709"), c, ip, t, secret));
  EXPECT_FALSE(valid_server_cookie(cc, c, ip, t, secret_of("ff0102030405060708090a0b0c0d0e0f")));
  ServerCookie bad = c;
  bad[0] = 2;  // an unknown version
  EXPECT_FALSE(valid_server_cookie(cc, bad, ip, t, secret));
}

std::vector<std::uint8_t> query_with_cookie(std::vector<std::uint8_t> cookie) {
  Message q;
  q.header.id = 5;
  q.questions.push_back({test::name("example.com."), type::SOA, rrclass::IN});
  q.edns.emplace();
  q.edns->options.push_back({option::COOKIE, std::move(cookie)});
  return encode(q).value();
}

TEST(Cookie, ResponderAnswersWithAFreshServerCookie) {
  DbLoad load =
      load_zones({{test::name("example.com."), HERALD_DNS_TEST_DATA "/server/example.com.zone"}});
  ResponderOptions opt;
  opt.cookie_secret = secret_of("00112233445566778899aabbccddeeff");
  Responder r(opt);
  std::uint8_t ip[4] = {127, 0, 0, 1};
  Client client{ip, 1'700'000'000};
  std::vector<std::uint8_t> out;
  auto cc = unhex("a1a2a3a4a5a6a7a8");

  Outcome first = r.respond(*load.db, query_with_cookie(cc), Transport::udp, out, false, client);
  EXPECT_EQ(first.cookie, CookieState::client_only);
  auto m = decode(out);
  ASSERT_TRUE(m && m->edns && m->edns->cookie());
  auto [echoed, server] = *m->edns->cookie();
  EXPECT_EQ(std::vector<std::uint8_t>(echoed.begin(), echoed.end()), cc);
  ASSERT_EQ(server.size(), 16u);
  EXPECT_TRUE(valid_server_cookie(cc, server, ip, client.now, opt.cookie_secret));

  // Sent back: valid; tampered: invalid, and still answered.
  std::vector<std::uint8_t> both = cc;
  both.insert(both.end(), server.begin(), server.end());
  Outcome second = r.respond(*load.db, query_with_cookie(both), Transport::udp, out, false, client);
  EXPECT_EQ(second.cookie, CookieState::valid);
  both.back() ^= 1;
  Outcome third = r.respond(*load.db, query_with_cookie(both), Transport::udp, out, false, client);
  EXPECT_EQ(third.cookie, CookieState::invalid);
  EXPECT_EQ(third.rcode, 0);
  EXPECT_FALSE(decode(out)->answers.empty());

  // Cookies off: no COOKIE option in the answer.
  opt.cookies = false;
  Responder off(opt);
  (void)off.respond(*load.db, query_with_cookie(cc), Transport::udp, out, false, client);
  EXPECT_FALSE(decode(out)->edns->cookie().has_value());
}

// require_cookies: over UDP, a client cookie alone or a bad server cookie
// gets BADCOOKIE (extended RCODE 23) with a fresh server cookie and no
// records; the valid cookie, TCP, and a query without cookies are answered.
TEST(Cookie, RequiredCookiesAnswerBadcookieUntilValid) {
  DbLoad load =
      load_zones({{test::name("example.com."), HERALD_DNS_TEST_DATA "/server/example.com.zone"}});
  ResponderOptions opt;
  opt.cookie_secret = secret_of("00112233445566778899aabbccddeeff");
  opt.require_cookies = true;
  Responder r(opt);
  std::uint8_t ip[4] = {127, 0, 0, 1};
  Client client{ip, 1'700'000'000};
  std::vector<std::uint8_t> out;
  auto cc = unhex("a1a2a3a4a5a6a7a8");

  Outcome first = r.respond(*load.db, query_with_cookie(cc), Transport::udp, out, false, client);
  EXPECT_EQ(first.rcode, static_cast<std::uint16_t>(Rcode::badcookie));
  EXPECT_EQ(first.cookie, CookieState::client_only);
  auto m = decode(out);
  ASSERT_TRUE(m && m->edns && m->edns->cookie());
  EXPECT_EQ(m->rcode(), 23);
  EXPECT_TRUE(m->answers.empty() && m->authority.empty() && m->additional.empty());
  EXPECT_FALSE(m->header.aa);
  auto [echoed, server] = *m->edns->cookie();
  EXPECT_EQ(std::vector<std::uint8_t>(echoed.begin(), echoed.end()), cc);
  ASSERT_TRUE(valid_server_cookie(cc, server, ip, client.now, opt.cookie_secret));

  // The client retries with the server cookie: answered.
  std::vector<std::uint8_t> both = cc;
  both.insert(both.end(), server.begin(), server.end());
  Outcome second = r.respond(*load.db, query_with_cookie(both), Transport::udp, out, false, client);
  EXPECT_EQ(second.rcode, 0);
  EXPECT_EQ(second.cookie, CookieState::valid);
  EXPECT_FALSE(decode(out)->answers.empty());

  // A tampered server cookie: BADCOOKIE again.
  both.back() ^= 1;
  Outcome bad = r.respond(*load.db, query_with_cookie(both), Transport::udp, out, false, client);
  EXPECT_EQ(bad.rcode, static_cast<std::uint16_t>(Rcode::badcookie));
  // Over TCP the address is not spoofable: answered.
  Outcome tcp = r.respond(*load.db, query_with_cookie(cc), Transport::tcp, out, false, client);
  EXPECT_EQ(tcp.rcode, 0);
  EXPECT_FALSE(decode(out)->answers.empty());
  // A client that sends no COOKIE option at all: answered.
  Message plain;
  plain.header.id = 6;
  plain.questions.push_back({test::name("example.com."), type::SOA, rrclass::IN});
  plain.edns.emplace();
  Outcome no_cookie =
      r.respond(*load.db, encode(plain).value(), Transport::udp, out, false, client);
  EXPECT_EQ(no_cookie.rcode, 0);
  EXPECT_EQ(no_cookie.cookie, CookieState::none);
  // Without enforcement (the default) the client-only query is answered.
  opt.require_cookies = false;
  Responder lax(opt);
  Outcome answered =
      lax.respond(*load.db, query_with_cookie(cc), Transport::udp, out, false, client);
  EXPECT_EQ(answered.rcode, 0);
}

}  // namespace
}  // namespace herald::dns
