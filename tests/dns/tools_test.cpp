// Cross-checks against real tools (installed by scripts/setup.sh):
//  - ldns (`ldns-read-zone`, Debian ldnsutils): our parse of a zone file must
//    give the same records as ldns's, compared as wire octets: ldns prints
//    every record as RFC 3597 `\# len hex` (-U), which our parser reads back
//    without interpreting the type's text form. Its presentation output must
//    also parse (with our parser) to the same records.
//  - kdig (Debian knot-dnsutils): the queries it sends, captured on a UDP
//    socket of ours, decode and re-encode byte-identically; the answers we
//    send back are printed by kdig as we expect.
// A missing tool fails the test with a message saying what to install.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "dns/presentation.hpp"
#include "dns/zone_parser.hpp"
#include "support/process.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

std::string find_tool(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    std::string dir = p.substr(start, end - start);
    auto full = std::filesystem::path(dir) / tool;
    if (::access(full.c_str(), X_OK) == 0) return full.string();
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

#define REQUIRE_TOOL(var, tool, package)                                       \
  std::string var = find_tool(tool);                                           \
  ASSERT_FALSE(var.empty()) << tool << " not found: install Debian's " package \
                            << " (scripts/setup.sh does)"

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::vector<Record> sorted(std::vector<Record> v) {
  std::sort(v.begin(), v.end(),
            [](const Record& a, const Record& b) { return record_to_text(a) < record_to_text(b); });
  return v;
}

void compare_with_ldns(const std::string& zone, const std::string& origin) {
  REQUIRE_TOOL(ldns, "ldns-read-zone", "ldnsutils");
  ZoneOptions opt;
  opt.origin = test::name(origin);
  auto ours = parse_zone_file(zone, opt);
  ASSERT_TRUE(ours.ok()) << ours.errors[0].to_string();
  ASSERT_GT(ours.records.size(), 10u);
  // -U A: every type but A as `\# len hex`; A stays in text (it has no
  // generic twin we could confuse).
  for (const char* flags : {"-U A", ""}) {
    SCOPED_TRACE(std::string("ldns-read-zone ") + flags);
    auto out = herald::test::run(
        {"/bin/sh", "-c",
         "exec " + shell_quote(ldns) + " " + flags + " " + shell_quote(zone) + " 2>/dev/null"});
    ASSERT_EQ(out.exit_code, 0) << out.output;
    auto theirs = parse_zone_text(out.output, "ldns-output", opt);
    ASSERT_TRUE(theirs.ok()) << theirs.errors[0].to_string() << "\n" << out.output;
    auto a = sorted(ours.records);
    auto b = sorted(theirs.records);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(record_to_text(a[i]), record_to_text(b[i]));
      EXPECT_EQ(a[i], b[i]);
    }
  }
  // Our own presentation output parses back to the same records.
  std::string text;
  for (const auto& rr : ours.records) text += record_to_text(rr) + "\n";
  auto again = parse_zone_text(text, "herald-output", opt);
  ASSERT_TRUE(again.ok()) << again.errors[0].to_string();
  EXPECT_EQ(again.records, ours.records);
}

TEST(Ldns, AllTypesZoneMatches) {
  compare_with_ldns(HERALD_DNS_TEST_DATA "/all_types.zone", "example.com.");
}

TEST(Ldns, DirectivesZoneMatches) {
  compare_with_ldns(HERALD_DNS_TEST_DATA "/directives.zone", "example.org.");
}

TEST(Ldns, CornersZoneMatches) {
  compare_with_ldns(HERALD_DNS_TEST_DATA "/corners.zone", "corners.example.");
}

// A UDP socket on 127.0.0.1 that takes one query, answers it with `respond`,
// and hands the query back.
struct Capture {
  std::vector<std::uint8_t> query;
  std::string kdig_output;
};

Capture run_kdig(const std::vector<std::string>& args) {
  Capture cap;
  std::string kdig = find_tool("kdig");
  EXPECT_FALSE(kdig.empty()) << "kdig not found: install Debian's knot-dnsutils "
                                "(scripts/setup.sh does)";
  if (kdig.empty()) return cap;
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  // safety: sockaddr_in is the sockaddr layout for AF_INET, as the API requires
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);  // safety: as above
  int port = ntohs(addr.sin_port);
  std::vector<std::string> argv = {kdig,         "@127.0.0.1", "-p",    std::to_string(port),
                                   "+timeout=5", "+retry=0",   "+notcp"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto kdig_done = std::async(std::launch::async, [argv] { return herald::test::run(argv); });
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 5000) == 1) {
    std::uint8_t buf[65535];
    sockaddr_in peer{};
    socklen_t plen = sizeof peer;
    // safety: as above, for the peer address
    ssize_t n = ::recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&peer), &plen);
    if (n > 0) {
      cap.query.assign(buf, buf + n);
      auto q = decode_query(cap.query);
      if (q) {
        Message resp;
        resp.header = q->header;
        resp.header.qr = true;
        resp.header.aa = true;
        resp.questions = q->questions;
        const Name& qn = q->questions[0].qname;
        auto add = [&](const char* type, const std::string& rdata) {
          Record r = test::rr("x.", type, rdata, 300);
          r.owner = qn;
          resp.answers.push_back(r);
        };
        add("A", "192.0.2.1");
        add("AAAA", "2001:db8::1");
        add("MX", "10 mail.example.com.");
        add("TXT", "\"hello \\\"world\\\"\"");
        add("SRV", "0 5 5060 sip.example.com.");
        if (q->edns) {
          resp.edns.emplace();
          resp.edns->udp_size = 1232;
        }
        auto wire = encode(resp);
        EXPECT_TRUE(wire);
        if (wire) {
          // safety: as above
          ::sendto(fd, wire->data(), wire->size(), 0, reinterpret_cast<sockaddr*>(&peer), plen);
        }
      }
    }
  }
  cap.kdig_output = kdig_done.get().output;
  ::close(fd);
  return cap;
}

struct KdigCase {
  const char* name;
  std::vector<std::string> args;
};

TEST(Kdig, QueriesDecodeAndReencodeByteIdentically) {
  const KdigCase cases[] = {
      {"plain_a", {"example.com", "A", "+noedns"}},
      {"mixed_case_mx", {"ExAmPlE.CoM", "MX", "+noedns"}},
      {"edns_dnssec", {"example.com", "DNSKEY", "+dnssec", "+bufsize=1232"}},
      {"nsid", {"example.com", "SOA", "+nsid"}},
      {"cookie", {"example.com", "A", "+cookie"}},
      {"subnet_v4", {"example.com", "A", "+subnet=192.0.2.0/24"}},
      {"subnet_v6", {"example.com", "AAAA", "+subnet=2001:db8::/56"}},
      {"padding", {"example.com", "A", "+padding=64"}},
      {"no_rd_cd_ad", {"example.com", "TXT", "+nord", "+cdflag", "+adflag"}},
      {"type_number", {"example.com", "TYPE65280"}},
      {"long_name", {"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.example.com", "SRV"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Capture cap = run_kdig(c.args);
    ASSERT_FALSE(cap.query.empty()) << "no query from kdig\n" << cap.kdig_output;
    auto q = decode_query(cap.query);
    ASSERT_TRUE(q) << q.error().to_string();
    auto again = encode(q.value());
    ASSERT_TRUE(again);
    EXPECT_EQ(test::hex(again.value()), test::hex(cap.query));
    const std::string name = c.args[0];
    // kdig sends the name in lower case.
    EXPECT_TRUE(q->questions[0].qname.iequals(test::name(name + ".")));
    // kdig printed the answers we sent, so our encoding parsed there too.
    EXPECT_NE(cap.kdig_output.find("192.0.2.1"), std::string::npos) << cap.kdig_output;
    EXPECT_NE(cap.kdig_output.find("2001:db8::1"), std::string::npos) << cap.kdig_output;
    EXPECT_NE(cap.kdig_output.find("10 mail.example.com."), std::string::npos) << cap.kdig_output;
    EXPECT_NE(cap.kdig_output.find("\"hello \\\"world\\\"\""), std::string::npos)
        << cap.kdig_output;
    EXPECT_NE(cap.kdig_output.find("0 5 5060 sip.example.com."), std::string::npos)
        << cap.kdig_output;
    std::string args;
    for (const auto& a : c.args) args += a + " ";
    const auto& e = q->edns;
    if (args.find("+noedns") != std::string::npos) {
      EXPECT_FALSE(e);
    }
    if (args.find("+dnssec") != std::string::npos) {
      ASSERT_TRUE(e);
      EXPECT_TRUE(e->dnssec_ok);
      EXPECT_EQ(e->udp_size, 1232);
    }
    if (args.find("+nsid") != std::string::npos) {
      EXPECT_TRUE(e && e->nsid());
    }
    if (args.find("+cookie") != std::string::npos) {
      EXPECT_TRUE(e && e->cookie());
    }
    if (args.find("+subnet=192") != std::string::npos) {
      ASSERT_TRUE(e && e->client_subnet());
      EXPECT_EQ(e->client_subnet()->source_prefix, 24);
      EXPECT_EQ(e->client_subnet()->address, (std::vector<std::uint8_t>{192, 0, 2}));
    }
    if (args.find("+subnet=2001") != std::string::npos) {
      ASSERT_TRUE(e && e->client_subnet());
      EXPECT_EQ(e->client_subnet()->family, 2);
      EXPECT_EQ(e->client_subnet()->source_prefix, 56);
    }
    if (args.find("+padding") != std::string::npos) {
      ASSERT_TRUE(e && e->find(option::PADDING));
      EXPECT_EQ(e->find(option::PADDING)->data, std::vector<std::uint8_t>(64, 0));
    }
    if (args.find("+nord") != std::string::npos) {
      EXPECT_FALSE(q->header.rd);
      EXPECT_TRUE(q->header.cd);
      EXPECT_TRUE(q->header.ad);
    }
  }
}

}  // namespace
}  // namespace herald::dns
