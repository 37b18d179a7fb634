// heraldd's DNS server as a real process, asked by a real client (kdig)
// over UDP and TCP; hostile packets from the codec's fuzz corpus; reload by
// SIGHUP and by the API with a bad zone; the TCP limits; the metrics.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>

#include "../test_util.hpp"
#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "dns_client.hpp"
#include "dns_daemon.hpp"
#include "fake_secondary.hpp"
#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/http_client.hpp"
#include "support/json.hpp"
#include "support/process.hpp"

namespace herald::dns {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using test::DnsDaemon;
using test::kdig;
using test::KdigResult;
using test::kDnsListening;
using test::kZones;

struct KdigCase {
  const char* name;
  std::vector<std::string> args;
  const char* status;
  const char* flags;
  int answer, authority, additional;  // kdig's counts (ADDITIONAL includes OPT)
};

// Counts as NSD 4.6 gives them for the same zones (see nsd_diff_test.cpp
// for the record-by-record comparison).
const std::vector<KdigCase> kKdigCases = {
    {"exact", {"web.example.com", "A"}, "NOERROR", "qr aa", 1, 2, 2},
    {"cname_chain", {"www.example.com", "A"}, "NOERROR", "qr aa", 2, 2, 2},
    {"cname_loop", {"loop1.example.com", "A"}, "NOERROR", "qr aa", 2, 0, 0},
    {"cname_other_zone", {"other.example.com", "A"}, "NOERROR", "qr aa", 2, 1, 0},
    {"cname_out", {"ext.example.com", "A"}, "NOERROR", "qr aa", 1, 0, 0},
    {"cname_dangling", {"dangling.example.com", "A"}, "NXDOMAIN", "qr aa", 1, 1, 0},
    {"cname_nodata", {"www.example.com", "MX"}, "NOERROR", "qr aa", 1, 1, 0},
    {"nodata", {"mail.example.com", "AAAA"}, "NOERROR", "qr aa", 0, 1, 0},
    {"nxdomain", {"nope.example.com", "A"}, "NXDOMAIN", "qr aa", 0, 1, 0},
    {"empty_non_terminal", {"ent.example.com", "A"}, "NOERROR", "qr aa", 0, 1, 0},
    {"wildcard", {"foo.wild.example.com", "A"}, "NOERROR", "qr aa", 1, 2, 2},
    {"wildcard_nodata", {"foo.wild.example.com", "MX"}, "NOERROR", "qr aa", 0, 1, 0},
    {"wildcard_cname", {"foo.cwild.example.com", "A"}, "NOERROR", "qr aa", 3, 2, 2},
    {"mx_additional", {"example.com", "MX"}, "NOERROR", "qr aa", 2, 2, 3},
    {"srv_additional", {"_sip._tcp.example.com", "SRV"}, "NOERROR", "qr aa", 1, 2, 3},
    {"mx_additional_wildcard", {"wmx.example.com", "MX"}, "NOERROR", "qr aa", 1, 2, 3},
    {"apex_ns", {"example.com", "NS"}, "NOERROR", "qr aa", 2, 0, 2},
    {"any_minimal", {"example.com", "ANY"}, "NOERROR", "qr aa", 1, 0, 0},
    {"referral", {"www.sub.example.com", "A"}, "NOERROR", "qr", 0, 2, 3},
    {"ds_at_cut", {"sub.example.com", "DS"}, "NOERROR", "qr aa", 1, 0, 0},
    {"ds_at_child_apex", {"child.example.com", "DS"}, "NOERROR", "qr aa", 1, 0, 0},
    {"child_apex_ns", {"child.example.com", "NS"}, "NOERROR", "qr aa", 1, 0, 1},
    {"dname", {"x.dn.example.com", "A"}, "NOERROR", "qr aa", 3, 1, 0},
    {"dname_nxdomain", {"nothere.dn.example.com", "A"}, "NXDOMAIN", "qr aa", 2, 1, 0},
    {"refused", {"www.example.org", "A"}, "REFUSED", "qr", 0, 0, 0},
    {"badvers", {"www.example.com", "A", "+edns=1"}, "BADVERS", "qr", 0, 0, 1},
    {"tcp", {"www.example.com", "A", "+tcp"}, "NOERROR", "qr aa", 2, 2, 2},
    // DNSSEC (kdig +dnssec sets DO; OPT counts in ADDITIONAL).
    {"nsec_positive", {"web.signed.example", "A", "+dnssec"}, "NOERROR", "qr aa", 2, 2, 3},
    {"nsec_nxdomain", {"nope.signed.example", "A", "+dnssec"}, "NXDOMAIN", "qr aa", 0, 6, 1},
    {"nsec_nodata", {"web.signed.example", "AAAA", "+dnssec"}, "NOERROR", "qr aa", 0, 4, 1},
    {"nsec_wildcard", {"x.wild.signed.example", "A", "+dnssec"}, "NOERROR", "qr aa", 2, 4, 3},
    {"nsec_dnskey", {"signed.example", "DNSKEY", "+dnssec"}, "NOERROR", "qr aa", 3, 0, 1},
    {"nsec_secure_referral",
     {"www.secure.signed.example", "A", "+dnssec"},
     "NOERROR",
     "qr",
     0,
     3,
     2},
    {"nsec3_nxdomain",
     {"nope.nsec3.example", "A", "+dnssec", "+tcp"},
     "NXDOMAIN",
     "qr aa",
     0,
     6,
     1},
    {"nsec3_nodata", {"web.nsec3.example", "AAAA", "+dnssec"}, "NOERROR", "qr aa", 0, 4, 1},
    {"nsec3_wildcard", {"x.wild.nsec3.example", "A", "+dnssec"}, "NOERROR", "qr aa", 2, 4, 3},
    {"nsec3_insecure_referral",
     {"www.insecure.nsec3.example", "A", "+dnssec"},
     "NOERROR",
     "qr",
     0,
     3,
     2},
};

TEST(DnsServer, KdigAnswersEveryCase) {
  DnsDaemon dns;
  ASSERT_NE(dns.port(), 0);
  std::set<std::string> seen;
  for (const KdigCase& c : kKdigCases) {
    ASSERT_TRUE(seen.insert(c.name).second) << "duplicate case " << c.name;
    SCOPED_TRACE(c.name);
    KdigResult r = kdig(dns.port(), c.args);
    EXPECT_EQ(r.status, c.status) << r.text;
    EXPECT_EQ(r.flags, c.flags) << r.text;
    EXPECT_EQ(r.answer, c.answer) << r.text;
    EXPECT_EQ(r.authority, c.authority) << r.text;
    EXPECT_EQ(r.additional, c.additional) << r.text;
  }
}

TEST(DnsServer, TruncatedOverUdpThenFullOverTcp) {
  DnsDaemon dns;
  // Without EDNS the six TXT strings (> 512 octets) do not fit: kdig sees TC
  // and retries over TCP by itself, where the whole answer comes.
  KdigResult r = kdig(dns.port(), {"big.example.com", "TXT"});
  EXPECT_TRUE(r.retried_tcp) << r.text;
  EXPECT_EQ(r.status, "NOERROR");
  EXPECT_EQ(r.answer, 6) << r.text;
  // +ignore keeps the truncated UDP answer: TC set, and the OPT record kept.
  KdigResult t = kdig(dns.port(), {"big.example.com", "TXT", "+ignore", "+bufsize=512"});
  EXPECT_NE(t.flags.find("tc"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("EDNS PSEUDOSECTION"), std::string::npos) << t.text;
}

// RFC 9471 with kdig: the in-domain glue of fat.example.com's eight servers
// does not fit 512 octets, so the referral comes with TC and kdig gets all
// of it over TCP; sib.example.com's sibling glue is cut short without TC.
TEST(DnsServer, ReferralTruncatedWhenInDomainGlueDoesNotFit) {
  DnsDaemon dns;
  KdigResult r = kdig(dns.port(), {"www.fat.example.com", "A", "+bufsize=512"});
  EXPECT_TRUE(r.retried_tcp) << r.text;
  EXPECT_EQ(r.flags, "qr") << r.text;  // a referral: AA clear
  EXPECT_EQ(r.authority, 8) << r.text;
  EXPECT_EQ(r.additional, 17) << r.text;  // 8 A, 8 AAAA, OPT
  KdigResult t = kdig(dns.port(), {"www.fat.example.com", "A", "+bufsize=512", "+ignore"});
  EXPECT_EQ(t.flags, "qr tc") << t.text;
  KdigResult big = kdig(dns.port(), {"www.fat.example.com", "A", "+bufsize=1232"});
  EXPECT_FALSE(big.retried_tcp) << big.text;
  EXPECT_EQ(big.additional, 17) << big.text;
  KdigResult sib = kdig(dns.port(), {"www.sib.example.com", "A", "+bufsize=512"});
  EXPECT_FALSE(sib.retried_tcp) << sib.text;
  EXPECT_EQ(sib.flags, "qr") << sib.text;
  EXPECT_EQ(sib.authority, 9) << sib.text;
  EXPECT_NE(sib.text.find("ns.sib.example.com."), std::string::npos) << sib.text;
  EXPECT_LT(sib.additional, 18) << sib.text;  // not all of 1 + 16 glue + OPT
}

// dns.require_cookies with kdig: its first query carries a client cookie
// only and gets BADCOOKIE; with +badcookie kdig retries with the server
// cookie it got, and the answer comes. Over TCP no cookie is required.
TEST(DnsServer, RequiredCookiesWithKdig) {
  DnsDaemon dns({"--dns.require_cookies", "true"});
  KdigResult bad = kdig(dns.port(), {"web.example.com", "A", "+cookie", "+nobadcookie"});
  EXPECT_EQ(bad.status, "BADCOOKIE") << bad.text;
  EXPECT_EQ(bad.answer, 0) << bad.text;
  KdigResult good = kdig(dns.port(), {"web.example.com", "A", "+cookie", "+badcookie"});
  EXPECT_EQ(good.status, "NOERROR") << good.text;
  EXPECT_EQ(good.answer, 1) << good.text;
  KdigResult tcp = kdig(dns.port(), {"web.example.com", "A", "+cookie", "+nobadcookie", "+tcp"});
  EXPECT_EQ(tcp.status, "NOERROR") << tcp.text;
  KdigResult none = kdig(dns.port(), {"web.example.com", "A", "+nocookie"});
  EXPECT_EQ(none.status, "NOERROR") << none.text;
  auto metrics = herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body;
  EXPECT_NE(metrics.find("herald_dns_responses_total{rcode=\"BADCOOKIE\"} 2"), std::string::npos)
      << metrics;
}

TEST(DnsServer, NsidAndExtendedErrors) {
  DnsDaemon dns;
  KdigResult r = kdig(dns.port(), {"web.example.com", "A", "+nsid"});
  EXPECT_NE(r.text.find("herald-test"), std::string::npos) << r.text;
  KdigResult refused = kdig(dns.port(), {"www.example.org", "A", "+edns"});
  EXPECT_NE(refused.text.find("EDE: 20"), std::string::npos) << refused.text;
}

TEST(DnsServer, CookiesWithKdig) {
  DnsDaemon dns;
  // kdig sends a client cookie, checks that the answer echoes it, and prints
  // the server cookie it got (16 octets: RFC 9018's layout, version 1).
  KdigResult r = kdig(dns.port(), {"web.example.com", "A", "+cookie"});
  static const std::regex cookie(R"(COOKIE: ([0-9A-F]{16})([0-9A-F]{32}))", std::regex::icase);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.text, m, cookie)) << r.text;
  EXPECT_EQ(std::string(m[2]).substr(0, 8), "01000000") << r.text;
  EXPECT_EQ(r.text.find("WARNING"), std::string::npos) << r.text;
  // The server cookie sent back is accepted: the answer is normal.
  KdigResult again = kdig(
      dns.port(), {"web.example.com", "A", "+cookie=" + std::string(m[1]) + std::string(m[2])});
  EXPECT_EQ(again.status, "NOERROR") << again.text;
  EXPECT_EQ(again.text.find("WARNING"), std::string::npos) << again.text;
  auto metrics = herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body;
  EXPECT_NE(metrics.find("herald_dns_cookies_total{state=\"client_only\"} 1"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("herald_dns_cookies_total{state=\"valid\"} 1"), std::string::npos)
      << metrics;
}

// Over the rate, answers are dropped or slipped (TC, question only); the
// assertions hold however the burst falls across seconds: 40 queries at a
// rate of 2 per second leave most of them over the limit.
TEST(DnsServer, ResponseRateLimiting) {
  DnsDaemon dns({"--dns.rrl_rate", "2", "--dns.rrl_slip", "2", "--dns.threads", "1"});
  Message q;
  q.questions.push_back({Name::from_text("web.example.com.").value(), type::A, rrclass::IN});
  auto wire = encode(q).value();
  test::Socket s(SOCK_DGRAM);
  ASSERT_TRUE(s.connect(dns.port(), 500ms));
  for (int i = 0; i < 40; ++i) ASSERT_GT(::send(s.fd(), wire.data(), wire.size(), 0), 0);
  int full = 0, truncated = 0;
  std::uint8_t buf[4096];
  for (;;) {
    ssize_t n = ::recv(s.fd(), buf, sizeof buf, 0);  // 500 ms receive timeout ends the loop
    if (n <= 0) break;
    auto m = decode({buf, static_cast<std::size_t>(n)});
    ASSERT_TRUE(m);
    if (m->header.tc) {
      ++truncated;
      EXPECT_TRUE(m->answers.empty());
    } else {
      ++full;
    }
  }
  EXPECT_GE(full, 2);
  EXPECT_LT(full, 20);
  EXPECT_GE(truncated, 1);
  EXPECT_LT(full + truncated, 40);  // some dropped
  // A client whose answer was slipped gets it over TCP, unlimited.
  EXPECT_EQ(kdig(dns.port(), {"web.example.com", "A", "+tcp"}).status, "NOERROR");
  auto metrics = herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body;
  EXPECT_NE(metrics.find("herald_dns_rrl_dropped_total"), std::string::npos);
  EXPECT_EQ(metrics.find("herald_dns_rrl_slipped_total 0\n"), std::string::npos) << metrics;
}

// On a dual-stack listener ([::]) IPv4 clients arrive as ::ffff:a.b.c.d.
// They are limited per IPv4 /24, not as one IPv6 network whose first 56 bits
// are all zero: a client of 127.0.0.0/24 over the rate leaves a client of
// 127.0.1.0/24 (both loopback) answered in full.
TEST(DnsServer, RateLimitOnADualStackListenerIsPerIPv4Network) {
  DnsDaemon dns({"--dns.listen", "[::]:0", "--dns.rrl_rate", "5", "--dns.rrl_slip", "0",
                 "--dns.threads", "1"});
  ASSERT_NE(dns.d.proc->output().find("dns listening addr=:::"), std::string::npos)
      << dns.d.proc->output();
  Message q;
  q.questions.push_back({Name::from_text("web.example.com.").value(), type::A, rrclass::IN});
  auto wire = encode(q).value();
  test::Socket busy(SOCK_DGRAM), other(SOCK_DGRAM);
  ASSERT_TRUE(busy.bind_source("127.0.0.1") && other.bind_source("127.0.1.1"));
  ASSERT_TRUE(busy.connect(dns.port(), 500ms) && other.connect(dns.port(), 5s));
  const auto send_busy = [&](int n) {
    for (int i = 0; i < n; ++i) ASSERT_GT(::send(busy.fd(), wire.data(), wire.size(), 0), 0);
  };
  // The busy network goes over the rate: some of its answers are dropped.
  send_busy(40);
  ASSERT_TRUE(herald::test::eventually([&] {
    return herald::test::metric_value(
               herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body,
               "herald_dns_rrl_dropped_total") > 0;
  }));
  // Each query of the other network follows ten of the busy one's through
  // the same socket of the one shard. Sharing the busy bucket, it would be
  // over the rate (5) and dropped; in a bucket of its own (three queries in
  // all) it is answered in full.
  for (int i = 0; i < 3; ++i) {
    send_busy(10);
    ASSERT_GT(::send(other.fd(), wire.data(), wire.size(), 0), 0);
    std::uint8_t reply[4096];
    ssize_t n = ::recv(other.fd(), reply, sizeof reply, 0);
    ASSERT_GT(n, 12) << "query " << i << " of the other network went unanswered";
    auto m = decode({reply, static_cast<std::size_t>(n)});
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->header.tc);
    EXPECT_EQ(m->answers.size(), 1u);
  }
}

TEST(DnsServer, DiscoveryZoneListsThisNode) {
  DnsDaemon dns;
  KdigResult srv = kdig(dns.port(), {"_herald._tcp.herald.internal", "SRV"});
  EXPECT_EQ(srv.status, "NOERROR");
  EXPECT_NE(srv.text.find("SRV\t0 0 " + std::to_string(dns.http_port) + " node1.herald.internal."),
            std::string::npos)
      << srv.text;
  KdigResult a = kdig(dns.port(), {"node1.herald.internal", "A"});
  EXPECT_NE(a.text.find("127.0.0.1"), std::string::npos) << a.text;
  KdigResult txt = kdig(dns.port(), {"node1.herald.internal", "TXT"});
  EXPECT_NE(txt.text.find("\"version="), std::string::npos) << txt.text;
}

// Every file of the codec's fuzz corpus (and saved crashes), as a UDP
// datagram and as a TCP message: the server neither crashes nor stalls, and
// answers a good query afterwards on both transports.
TEST(DnsServer, HostilePacketsNeitherCrashNorStall) {
  DnsDaemon dns;
  std::size_t sent = 0;
  test::Socket u(SOCK_DGRAM);
  ASSERT_TRUE(u.connect(dns.port(), 200ms));
  for (const char* dir :
       {HERALD_FUZZ_DIR "/corpus/dns_message", HERALD_FUZZ_DIR "/crashes/dns_message"}) {
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      std::ifstream in(e.path(), std::ios::binary);
      std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
      if (bytes.size() > 65535) bytes.resize(65535);
      // UDP: sent without waiting; a reply, if any, is read and discarded
      // below (the server drops what it cannot answer).
      (void)::send(u.fd(), bytes.data(), bytes.size(), 0);
      std::uint8_t reply[65535];
      while (::recv(u.fd(), reply, sizeof reply, MSG_DONTWAIT) > 0) {
      }
      // TCP: one connection per message, so a message the server drops
      // (it closes the stream) is seen as EOF, not waited for.
      test::Socket t(SOCK_STREAM);
      ASSERT_TRUE(t.connect(dns.port(), 5s));
      (void)test::tcp_send(t, bytes);
      (void)test::tcp_receive(t);
      ++sent;
    }
  }
  EXPECT_GT(sent, 10u);
  EXPECT_FALSE(dns.d.proc->wait_exit(0ms).has_value()) << dns.d.proc->output();
  EXPECT_EQ(kdig(dns.port(), {"web.example.com", "A"}).status, "NOERROR");
  EXPECT_EQ(kdig(dns.port(), {"web.example.com", "A", "+tcp"}).status, "NOERROR");
}

TEST(DnsServer, AxfrWithKdigOnlyForAllowedClients) {
  DnsDaemon allowed({"--dns.transfer_allow", "127.0.0.1"});
  for (const char* zone : {"example.com", "signed.example", "nsec3.example"}) {
    SCOPED_TRACE(zone);
    KdigResult r = kdig(allowed.port(), {zone, "AXFR"});
    // kdig checks the SOA framing itself and sums up the transfer.
    static const std::regex summary(R"(;; Received \d+ B \((\d+) messages?, (\d+) records\))");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.text, m, summary)) << r.text;
    EXPECT_GT(std::stoi(m[2]), 10) << r.text;
    EXPECT_EQ(r.text.find("ERROR"), std::string::npos) << r.text;
  }
  // IXFR is answered with the full zone.
  KdigResult ixfr = kdig(allowed.port(), {"example.com", "IXFR=1"});
  EXPECT_NE(ixfr.text.find("_sip._tcp.example.com."), std::string::npos) << ixfr.text;
  // Not in the ACL (the default allows no one): REFUSED.
  DnsDaemon closed;
  herald::test::RunResult refused =
      herald::test::run({KDIG_PATH, "@127.0.0.1", "-p", std::to_string(closed.port()),
                         "example.com", "AXFR", "+time=5"},
                        {}, 30s);
  EXPECT_NE(refused.output.find("REFUSED"), std::string::npos) << refused.output;
}

TEST(DnsServer, TcpPipeliningAnswersInOrder) {
  DnsDaemon dns;
  test::Socket s(SOCK_STREAM);
  ASSERT_TRUE(s.connect(dns.port(), test::kTimeout));
  // Ten queries written back to back before reading any answer (RFC 7766 §6.2.1.1).
  const char* names[] = {"web.example.com.", "mail.example.com.", "nope.example.com."};
  for (std::uint16_t id = 0; id < 10; ++id) {
    Message q;
    q.header.id = id;
    q.questions.push_back({Name::from_text(names[id % 3]).value(), type::A, rrclass::IN});
    ASSERT_TRUE(test::tcp_send(s, encode(q).value()));
  }
  for (std::uint16_t id = 0; id < 10; ++id) {
    auto reply = test::tcp_receive(s);
    ASSERT_TRUE(reply);
    auto m = decode(*reply);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->header.id, id);
    EXPECT_EQ(m->rcode(), id % 3 == 2 ? 3 : 0);
  }
}

// The limit with an idle timeout no test run reaches: the two admitted
// connections stay open while the third is refused, however slowly the
// machine runs the test.
TEST(DnsServer, TcpConnectionLimit) {
  DnsDaemon dns({"--dns.tcp_idle_timeout", "1h", "--dns.max_tcp_connections", "2"});
  test::Socket a(SOCK_STREAM), b(SOCK_STREAM), c(SOCK_STREAM);
  ASSERT_TRUE(a.connect(dns.port(), 10s));
  ASSERT_TRUE(b.connect(dns.port(), 10s));
  // Both admitted: each answers a query.
  Message q;
  q.questions.push_back({Name::from_text("web.example.com.").value(), type::A, rrclass::IN});
  auto wire = encode(q).value();
  ASSERT_TRUE(test::tcp_send(a, wire));
  ASSERT_TRUE(test::tcp_receive(a));
  ASSERT_TRUE(test::tcp_send(b, wire));
  ASSERT_TRUE(test::tcp_receive(b));
  // The third is over the limit: closed on accept, so it reads EOF.
  ASSERT_TRUE(c.connect(dns.port(), 10s));
  (void)test::tcp_send(c, wire);
  EXPECT_FALSE(test::tcp_receive(c));
  // The two admitted ones were not disturbed.
  ASSERT_TRUE(test::tcp_send(a, wire));
  EXPECT_TRUE(test::tcp_receive(a));
  ASSERT_TRUE(test::tcp_send(b, wire));
  EXPECT_TRUE(test::tcp_receive(b));
  auto metrics = herald::test::http_get("127.0.0.1", dns.http_port, "/metrics");
  EXPECT_NE(metrics.body.find("herald_dns_tcp_refused_total 1"), std::string::npos) << metrics.body;
}

// A connection that says nothing is closed after the idle timeout. Nothing
// is sent on it, so no activity can race the short timer: the test only
// waits for the server to hang up.
TEST(DnsServer, TcpIdleTimeout) {
  DnsDaemon dns({"--dns.tcp_idle_timeout", "200ms"});
  test::Socket a(SOCK_STREAM);
  ASSERT_TRUE(a.connect(dns.port(), 30s));
  // EOF, not the 30 s receive timeout: the read returns once the server
  // closes.
  std::uint8_t byte;
  EXPECT_EQ(::recv(a.fd(), &byte, 1, 0), 0);
}

// A connection is closed after dns.tcp_max_queries answers: three queries
// allowed, three written back to back, three answers, then EOF. The idle
// timeout (1 h) is never what closes it. (A fourth query in flight would
// meet a socket closed with unread data, which the kernel resets: a
// client's retry on a new connection is the RFC 7766 §6.2.3 answer.)
TEST(DnsServer, TcpQueryLimitClosesAfterTheLastAnswer) {
  DnsDaemon dns({"--dns.tcp_idle_timeout", "1h", "--dns.tcp_max_queries", "3"});
  test::Socket s(SOCK_STREAM);
  ASSERT_TRUE(s.connect(dns.port(), 30s));
  for (std::uint16_t id = 1; id <= 3; ++id) {
    Message q;
    q.header.id = id;
    q.questions.push_back({Name::from_text("web.example.com.").value(), type::A, rrclass::IN});
    ASSERT_TRUE(test::tcp_send(s, encode(q).value()));
  }
  for (std::uint16_t id = 1; id <= 3; ++id) {
    auto reply = test::tcp_receive(s);
    ASSERT_TRUE(reply) << "answer " << id;
    EXPECT_EQ(decode(*reply).value().header.id, id);
  }
  std::uint8_t byte = 0;
  EXPECT_EQ(::recv(s.fd(), &byte, 1, 0), 0);  // EOF, not the 30 s receive timeout
  EXPECT_TRUE(herald::test::eventually([&] {
    return herald::test::metric_value(
               herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body,
               "herald_dns_tcp_spent_total") == 1;
  }));
}

// One query every so often kept a connection forever under the idle timeout
// alone. With dns.tcp_lifetime it is closed once that old, between
// messages: every answer it was sent is whole. The client here never falls
// silent (a query every 100 ms against an idle timeout of 1 h): only the
// lifetime can close it, and the test's bound (60 s) only ends a failure.
TEST(DnsServer, TcpLifetimeClosesABusyConnectionBetweenAnswers) {
  DnsDaemon dns({"--dns.tcp_idle_timeout", "1h", "--dns.tcp_lifetime", "1s"});
  test::Socket s(SOCK_STREAM);
  ASSERT_TRUE(s.connect(dns.port(), 30s));
  Message q;
  q.questions.push_back({Name::from_text("web.example.com.").value(), type::A, rrclass::IN});
  const auto wire = encode(q).value();
  const auto bound = std::chrono::steady_clock::now() + 60s;
  int answered = 0;
  bool closed = false;
  while (!closed && std::chrono::steady_clock::now() < bound) {
    // A failed send is a close the client had not read yet (a reset).
    auto reply = test::tcp_send(s, wire) ? test::tcp_receive(s) : std::nullopt;
    if (!reply) {
      // EOF, or a reset if this query reached the closed socket; not the
      // receive timeout (a server that stopped answering).
      std::uint8_t byte = 0;
      const ssize_t n = ::recv(s.fd(), &byte, 1, 0);
      closed = n == 0 || (n < 0 && errno == ECONNRESET);
      break;
    }
    ASSERT_TRUE(decode(*reply)) << "answer " << answered << " was cut";
    ++answered;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(closed) << "never closed within the test's bound";
  EXPECT_GT(answered, 0);
  EXPECT_TRUE(herald::test::eventually([&] {
    return herald::test::metric_value(
               herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body,
               "herald_dns_tcp_spent_total") == 1;
  }));
}

// A query that carries a 64 KB SVCB record whose mandatory list names its
// 10,899 keys: decoding it took one shard ~195 ms when the list was checked
// with a nested loop. A query's additional section may only hold OPT (and
// TSIG), so it is now refused with FORMERR on the record's type, unread.
// Meanwhile a client of the same shard asks over UDP, and the time each of
// its answers takes is printed (not asserted: a loaded machine decides it).
TEST(DnsServer, AQueryWithAHugeSvcbRecordIsRefusedUnread) {
  DnsDaemon dns({"--dns.threads", "1"});
  std::vector<std::uint8_t> hostile = {0x12, 0x34, 0x00, 0x00, 0, 1, 0, 0, 0, 0, 0, 1};
  const auto put16 = [&hostile](std::size_t x) {
    hostile.push_back(static_cast<std::uint8_t>(x >> 8));
    hostile.push_back(static_cast<std::uint8_t>(x & 0xFF));
  };
  for (const char* label : {"web", "example", "com"}) {
    hostile.push_back(static_cast<std::uint8_t>(std::strlen(label)));
    hostile.insert(hostile.end(), label, label + std::strlen(label));
  }
  hostile.push_back(0);
  put16(1);  // A
  put16(1);  // IN
  constexpr std::size_t keys = 10'899;
  hostile.push_back(0);  // owner: the root
  put16(64);             // SVCB
  put16(1);
  put16(0);
  put16(0);  // TTL
  put16(7 + 6 * keys);
  put16(1);              // priority
  hostile.push_back(0);  // target "."
  put16(0);              // mandatory=
  put16(2 * keys);
  for (std::size_t k = 0; k < keys; ++k) put16(8 + k);
  for (std::size_t k = 0; k < keys; ++k) {
    put16(8 + k);  // keyNNNN, empty
    put16(0);
  }
  ASSERT_LE(hostile.size(), 65535u);

  Message good;
  good.questions.push_back({Name::from_text("web.example.com.").value(), type::A, rrclass::IN});
  const auto good_wire = encode(good).value();
  std::atomic<bool> done{false};
  std::atomic<int> answered{0};
  std::vector<std::chrono::microseconds> latencies;  // the asker's alone until joined
  int unanswered = 0;
  std::thread asker([&] {
    test::Socket u(SOCK_DGRAM);
    if (!u.connect(dns.port(), 5s)) return;
    while (!done.load()) {
      const auto start = std::chrono::steady_clock::now();
      std::uint8_t reply[4096];
      if (::send(u.fd(), good_wire.data(), good_wire.size(), 0) < 0 ||
          ::recv(u.fd(), reply, sizeof reply, 0) <= 0) {
        ++unanswered;
        continue;
      }
      latencies.push_back(std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - start));
      answered.fetch_add(1);
    }
  });
  // States, not times: the normal client is answering before the hostile
  // queries start, and is answered again after they end.
  ASSERT_TRUE(herald::test::eventually([&] { return answered.load() > 0; }));
  for (int i = 0; i < 20; ++i) {
    test::Socket t(SOCK_STREAM);
    ASSERT_TRUE(t.connect(dns.port(), 30s));
    ASSERT_TRUE(test::tcp_send(t, hostile));
    auto reply = test::tcp_receive(t);
    ASSERT_TRUE(reply);
    auto m = decode(*reply);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->rcode(), 1) << "FORMERR";
  }
  const int before_end = answered.load();
  EXPECT_TRUE(herald::test::eventually([&] { return answered.load() > before_end; }));
  done = true;
  asker.join();
  EXPECT_EQ(unanswered, 0);
  ASSERT_FALSE(latencies.empty());
  std::sort(latencies.begin(), latencies.end());
  std::printf("concurrent UDP query: %zu answered, median %lld us, max %lld us\n", latencies.size(),
              static_cast<long long>(latencies[latencies.size() / 2].count()),
              static_cast<long long>(latencies.back().count()));
}

TEST(DnsServer, MetricsCountQueriesByTypeAndRcode) {
  DnsDaemon dns;
  (void)kdig(dns.port(), {"web.example.com", "A"});
  (void)kdig(dns.port(), {"nope.example.com", "AAAA"});
  (void)kdig(dns.port(), {"www.example.org", "MX"});
  auto metrics = herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body;
  for (const char* line :
       {"herald_dns_queries_total{type=\"A\"} 1", "herald_dns_queries_total{type=\"AAAA\"} 1",
        "herald_dns_queries_total{type=\"MX\"} 1",
        "herald_dns_responses_total{rcode=\"NOERROR\"} 1",
        "herald_dns_responses_total{rcode=\"NXDOMAIN\"} 1",
        "herald_dns_responses_total{rcode=\"REFUSED\"} 1", "herald_dns_zones 6",
        "herald_dns_response_seconds_bucket{shard=\"0\",le="}) {
    EXPECT_NE(metrics.find(line), std::string::npos) << line << "\n" << metrics;
  }
  // Three queries timed, over the two shards.
  std::uint64_t timed = 0;
  static const std::regex count(R"(herald_dns_response_seconds_count\{shard="\d"\} (\d+))");
  for (std::sregex_iterator it(metrics.begin(), metrics.end(), count), end; it != end; ++it)
    timed += std::stoull((*it)[1]);
  EXPECT_EQ(timed, 3u) << metrics;
}

// herald_dns_dropped_total counts queries that get no answer at all: over
// UDP or TCP a message the responder drops (shorter than a header, or a
// response where a query belongs: answering invites loops), and over UDP a
// datagram longer than the server reads (4096 octets). A reply the socket
// buffer cannot take counts too, but no client can cause that here.
TEST(DnsServer, DroppedQueriesAreCountedAndNotAnswered) {
  DnsDaemon dns;
  Message good;
  good.header.id = 77;
  good.questions.push_back({test::name("web.example.com."), type::A, rrclass::IN});
  Message response = good;
  response.header.id = 78;
  response.header.qr = true;
  const std::vector<std::uint8_t> short_header{0, 79, 0, 0, 0};
  std::vector<std::uint8_t> oversized = encode(good).value();
  oversized[1] = 80;
  oversized.resize(5000);  // zeros after the question: the size is the point

  // One socket, so one shard reads all four in order: the answer to the good
  // query comes after the three others were handled.
  test::Socket u(SOCK_DGRAM);
  ASSERT_TRUE(u.connect(dns.port(), test::kTimeout));
  for (const std::vector<std::uint8_t>& d :
       {short_header, encode(response).value(), oversized, encode(good).value()}) {
    ASSERT_GE(::send(u.fd(), d.data(), d.size(), 0), 0);  // a datagram goes whole or not at all
  }
  std::uint8_t reply[65535];
  ASSERT_GE(::recv(u.fd(), reply, sizeof reply, 0), 12);
  EXPECT_EQ(reply[0] << 8 | reply[1], 77);  // the first and only reply
  EXPECT_LT(::recv(u.fd(), reply, sizeof reply, MSG_DONTWAIT), 0);

  // Over TCP the server closes the stream instead of answering.
  test::Socket t(SOCK_STREAM);
  ASSERT_TRUE(t.connect(dns.port(), test::kTimeout));
  ASSERT_TRUE(test::tcp_send(t, short_header));
  std::uint8_t byte = 0;
  EXPECT_EQ(::recv(t.fd(), &byte, 1, 0), 0);  // EOF, not the receive timeout

  auto dropped = [&] {
    return herald::test::metric_value(
        herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body,
        "herald_dns_dropped_total");
  };
  // The TCP close may be seen before its count is.
  EXPECT_TRUE(herald::test::eventually([&] { return dropped() >= 4; }));
  EXPECT_EQ(dropped(), 4);
  const std::string metrics = herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body;
  EXPECT_EQ(herald::test::metric_value(metrics, "herald_dns_queries_total{type=\"A\"}"), 1)
      << metrics;
}

// NOTIFY through heraldd (docs/dns.md, "Zone transfer"): at start every zone
// is announced to each secondary in dns.notify; a secondary that never
// answers gets each NOTIFY five times, one that answers the second try gets
// it twice, and the metrics say so. The secondaries are this test's sockets
// (fake_secondary.hpp): no real secondary stays silent on purpose.
TEST(DnsServer, NotifyRetriesAndItsMetrics) {
  test::FakeSecondary silent(0);
  test::FakeSecondary answers_second(2);
  ASSERT_TRUE(silent.bound() && answers_second.bound());
  DnsDaemon dns({"--dns.notify", "127.0.0.1:" + std::to_string(silent.port()) +
                                     ",127.0.0.1:" + std::to_string(answers_second.port())});
  auto metrics = [&] {
    return herald::test::http_get("127.0.0.1", dns.http_port, "/metrics").body;
  };
  const double zones = herald::test::metric_value(metrics(), "herald_dns_zones");
  ASSERT_GT(zones, 0);
  // Safety: a count of zones, a small whole number.
  const auto zone_count = static_cast<std::size_t>(zones);
  // The round ends when the silent secondary's five tries are over (a
  // second apart): wait for that state, with a generous bound.
  for (int i = 0; i < 600; ++i) {
    if (herald::test::metric_value(metrics(), "herald_dns_notify_failed_total") == zones) break;
    std::this_thread::sleep_for(100ms);
  }
  const std::string m = metrics();
  EXPECT_EQ(herald::test::metric_value(m, "herald_dns_notify_failed_total"), zones) << m;
  EXPECT_EQ(herald::test::metric_value(m, "herald_dns_notify_acked_total"), zones) << m;
  EXPECT_EQ(herald::test::metric_value(m, "herald_dns_notify_sent_total"), zones * (5 + 2)) << m;

  silent.stop();
  answers_second.stop();
  EXPECT_EQ(silent.received().size(), zone_count);  // one ID per zone
  for (const auto& [id, count] : silent.received()) EXPECT_EQ(count, 5u) << "id " << id;
  EXPECT_EQ(answers_second.received().size(), zone_count);
  for (const auto& [id, count] : answers_second.received()) EXPECT_EQ(count, 2u) << "id " << id;
  EXPECT_EQ(silent.other() + answers_second.other(), 0u);
}

TEST(DnsServer, SighupReloadsAndABadZoneLeavesTheOthersServing) {
  test::TempDir tmp("herald-dns-reload");
  const fs::path& dir = tmp.path;
  const std::string head = "$TTL 60\n@ SOA ns hm 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n";
  std::ofstream(dir / "a.test.zone") << head << "www A 192.0.2.10\n";
  DnsDaemon dns({}, dir.string());
  EXPECT_NE(kdig(dns.port(), {"www.a.test", "A"}).text.find("192.0.2.10"), std::string::npos);
  EXPECT_EQ(kdig(dns.port(), {"www.b.test", "A"}).status, "REFUSED");
  // Change a.test, add b.test, and add a broken c.test (CNAME beside data).
  std::ofstream(dir / "a.test.zone") << head << "www A 192.0.2.11\n";
  std::ofstream(dir / "b.test.zone") << head << "www A 192.0.2.20\n";
  std::ofstream(dir / "c.test.zone") << head << "www CNAME ns\nwww A 192.0.2.30\n";
  dns.d.proc->signal(SIGHUP);
  auto logged = dns.d.proc->wait_for_line(std::regex("dns zones loaded zones=3 failed=1"), 30s);
  ASSERT_TRUE(logged) << dns.d.proc->output();
  EXPECT_NE(dns.d.proc->output().find("c.test.zone:6:1: A beside a CNAME"), std::string::npos)
      << dns.d.proc->output();
  EXPECT_NE(kdig(dns.port(), {"www.a.test", "A"}).text.find("192.0.2.11"), std::string::npos);
  EXPECT_NE(kdig(dns.port(), {"www.b.test", "A"}).text.find("192.0.2.20"), std::string::npos);
  EXPECT_EQ(kdig(dns.port(), {"www.c.test", "A"}).status, "REFUSED");
}

// A zone whose NSEC3 chain asks more hash iterations than
// dns.max_nsec3_iterations is refused at load, naming the file, line and
// the fix; the others serve. An NXDOMAIN of an NSEC3 zone is where the
// iterations are spent: with 2,500 of them each such query cost up to
// three hashes of 2,501 SHA-1 runs.
TEST(DnsServer, AZoneWithTooManyNsec3IterationsIsRefusedAtLoad) {
  test::TempDir tmp("herald-dns-nsec3-iterations");
  const fs::path& dir = tmp.path;
  const std::string head = "$TTL 60\n@ SOA ns hm 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n";
  std::ofstream(dir / "fine.test.zone") << head << "@ NSEC3PARAM 1 0 10 -\nwww A 192.0.2.10\n";
  std::ofstream(dir / "costly.test.zone") << head << "@ NSEC3PARAM 1 0 2500 -\nwww A 192.0.2.20\n";
  DnsDaemon dns({"--dns.max_nsec3_iterations", "10"}, dir.string());
  EXPECT_NE(dns.d.proc->output().find("costly.test.zone:5:1: NSEC3PARAM has 2500 iterations, "
                                      "over dns.max_nsec3_iterations (10)"),
            std::string::npos)
      << dns.d.proc->output();
  EXPECT_NE(kdig(dns.port(), {"www.fine.test", "A"}).text.find("192.0.2.10"), std::string::npos);
  EXPECT_EQ(kdig(dns.port(), {"www.costly.test", "A"}).status, "REFUSED");
}

// A zone reload: a few zones, bounded far above what it takes.
herald::test::HttpReply reload(std::uint16_t port, const std::string& key = "") {
  return herald::test::api_post(port, "/api/dns/reload", "{}", key, 60s);
}

// POST /api/dns/reload (docs/protocol.md): the reply says what loaded and
// which zone file failed where; the zones that loaded serve, the old
// version of a zone that now fails is gone (like SIGHUP), and queries sent
// throughout the reloads are all answered.
TEST(DnsServer, ApiReloadReportsWhatLoadedAndKeepsServing) {
  test::TempDir tmp("herald-dns-api-reload");
  const fs::path& dir = tmp.path;
  auto head = [](int serial) {
    return "$TTL 60\n@ SOA ns hm " + std::to_string(serial) + " 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n";
  };
  std::ofstream(dir / "a.test.zone") << head(1) << "www A 192.0.2.10\n";
  DnsDaemon dns({"--api.key", "s3cret", "--dns.discovery_zone", ""}, dir.string());
  ASSERT_NE(dns.http_port, 0);
  EXPECT_NE(kdig(dns.port(), {"www.a.test", "A"}).text.find("192.0.2.10"), std::string::npos);

  // The API key guards it like every /api route.
  EXPECT_EQ(reload(dns.http_port).status, 401);
  EXPECT_EQ(reload(dns.http_port, "wrong").status, 401);

  // Edit a.test, add b.test and a broken c.test (CNAME beside data, line 6).
  std::ofstream(dir / "a.test.zone") << head(2) << "www A 192.0.2.11\n";
  std::ofstream(dir / "b.test.zone") << head(1) << "www A 192.0.2.20\n";
  std::ofstream(dir / "c.test.zone") << head(1) << "www CNAME ns\nwww A 192.0.2.30\n";
  herald::test::HttpReply r = reload(dns.http_port, "s3cret");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(herald::test::json_uint(r.body, "/result/zones"), 2u) << r.body;
  EXPECT_EQ(herald::test::json_uint(r.body, "/result/failed"), 1u) << r.body;
  // Changed: a new serial (a.test) or a zone not served before (b.test).
  EXPECT_EQ(herald::test::json_uint(r.body, "/result/changed"), 2u) << r.body;
  ASSERT_EQ(herald::test::json_size(r.body, "/result/errors"), 1u) << r.body;
  EXPECT_EQ(herald::test::json_str(r.body, "/result/errors/0/file"),
            (dir / "c.test.zone").string());
  EXPECT_EQ(herald::test::json_uint(r.body, "/result/errors/0/line"), 6u);
  EXPECT_EQ(herald::test::json_str(r.body, "/result/errors/0/message")
                .value_or("")
                .find("A beside a CNAME at www.c.test."),
            0u)
      << r.body;
  EXPECT_NE(kdig(dns.port(), {"www.a.test", "A"}).text.find("192.0.2.11"), std::string::npos);
  EXPECT_NE(kdig(dns.port(), {"www.b.test", "A"}).text.find("192.0.2.20"), std::string::npos);
  EXPECT_EQ(kdig(dns.port(), {"www.c.test", "A"}).status, "REFUSED");

  // Break a.test, which was serving: it is reported and left out, b.test
  // keeps serving; fixing it and reloading brings it back.
  std::ofstream(dir / "a.test.zone") << head(3) << "www A 192.0.2.300\n";
  r = reload(dns.http_port, "s3cret");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(herald::test::json_uint(r.body, "/result/zones"), 1u) << r.body;
  EXPECT_EQ(herald::test::json_uint(r.body, "/result/failed"), 2u) << r.body;
  EXPECT_EQ(herald::test::json_uint(r.body, "/result/changed"), 0u) << r.body;
  EXPECT_NE(r.body.find("a.test.zone\",\"line\":5"), std::string::npos) << r.body;
  EXPECT_NE(kdig(dns.port(), {"www.b.test", "A"}).text.find("192.0.2.20"), std::string::npos);

  // Queries over UDP while reloading again and again: every one answered.
  std::ofstream(dir / "a.test.zone") << head(4) << "www A 192.0.2.12\n";
  std::ofstream(dir / "c.test.zone") << head(1) << "www A 192.0.2.30\n";
  std::atomic<int> answered{0}, unanswered{0};
  // A jthread: an ASSERT that returns early still stops and joins it.
  std::jthread asker([&](std::stop_token stop) {
    Message q;
    q.questions.push_back({Name::from_text("www.b.test.").value(), type::A, rrclass::IN});
    auto wire = encode(q).value();
    while (!stop.stop_requested()) {
      auto reply = test::udp_query(dns.port(), wire);
      bool ok = false;
      if (reply) {
        auto m = decode(*reply);
        ok = m && m->answers.size() == 1;
      }
      (ok ? answered : unanswered).fetch_add(1);
    }
  });
  // The asker is seen running before the first reload and after the last,
  // so its queries span the reloads however the threads are scheduled.
  ASSERT_TRUE(herald::test::eventually([&] { return answered.load() > 0; })) << "no query answered";
  for (int i = 0; i < 5; ++i) {
    r = reload(dns.http_port, "s3cret");
    ASSERT_EQ(r.status, 200) << r.body << "\nheraldd:\n" << dns.d.proc->output();
    EXPECT_EQ(herald::test::json_uint(r.body, "/result/zones"), 3u) << r.body;
    EXPECT_EQ(herald::test::json_uint(r.body, "/result/failed"), 0u) << r.body;
  }
  const int after_reloads = answered.load() + unanswered.load();
  EXPECT_TRUE(herald::test::eventually(
      [&] { return answered.load() + unanswered.load() > after_reloads; }));
  asker.request_stop();
  asker.join();
  EXPECT_EQ(unanswered.load(), 0);
  EXPECT_NE(kdig(dns.port(), {"www.a.test", "A"}).text.find("192.0.2.12"), std::string::npos);
  EXPECT_NE(kdig(dns.port(), {"www.c.test", "A"}).text.find("192.0.2.30"), std::string::npos);
}

// Without [dns] the endpoint says the DNS server is off.
TEST(DnsServer, ApiReloadWithoutDnsIsNotAvailable) {
  herald::test::Daemon d;  // dev mode: no key needed
  herald::test::HttpReply r = reload(d.port);
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(herald::test::json_str(r.body, "/error/code"), "not_available") << r.body;
}

}  // namespace
}  // namespace herald::dns
