// Zones signed online, served by a real heraldd and checked by an
// independent validator: BIND's delv, with the zone's key as its only trust
// anchor, must say "fully validated" (or "negative response, fully
// validated") for every answer class of RFC 9824 compact denial, for each
// algorithm and for a KSK/ZSK split; kdig shows the wire form of the
// denials. delv forwards rather than iterates, so a delegation's proof is
// checked through DS queries at the cut.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../signing/online_zone.hpp"
#include "dns_daemon.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace herald::dns {
namespace {

using namespace std::chrono_literals;
using test::DnsDaemon;
using test::kdig;

const std::string kKeys = test::kOnlineData + "/keys";

class OnlineServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<herald::test::TempDir>("herald-online-server");
    const auto zones = dir_->path / "zones";
    std::filesystem::create_directories(zones);
    for (const char* z : {"online.example.", "ed25519.example.", "split.example."}) {
      std::ofstream(zones / (std::string(z) + "zone")) << test::online_zone_text(z);
    }
    std::ofstream(dir_->path / "online.anchor")
        << test::delv_anchor("online.example.", "Konline.example.+013+11254.key");
    std::ofstream(dir_->path / "ed25519.anchor")
        << test::delv_anchor("ed25519.example.", "Ked25519.example.+015+36831.key");
    std::ofstream(dir_->path / "split.anchor")
        << test::delv_anchor("split.example.", "Ksplit.example.+013+34179.key");
    // online.example. anchored on a key that is not its own.
    std::ofstream(dir_->path / "wrong.anchor")
        << test::delv_anchor("online.example.", "Ksplit.example.+013+34179.key");
    server_ = std::make_unique<DnsDaemon>(
        std::vector<std::string>{"--dns.keys_dir", kKeys, "--dns.discovery_zone", ""},
        zones.string());
  }
  static void TearDownTestSuite() {
    server_.reset();
    dir_.reset();
  }

  // delv's verdict lines for one query, anchored at `zone`.
  static std::string delv(const std::string& anchor_file, const std::string& zone,
                          std::vector<std::string> query) {
    std::vector<std::string> argv{DELV_PATH,
                                  "-4",
                                  "@127.0.0.1",
                                  "-p",
                                  std::to_string(server_->port()),
                                  "-a",
                                  (dir_->path / anchor_file).string(),
                                  "+root=" + zone};
    argv.insert(argv.end(), query.begin(), query.end());
    herald::test::RunResult r = herald::test::run(argv, {}, 30s);
    return r.output;
  }

  static std::unique_ptr<herald::test::TempDir> dir_;
  static std::unique_ptr<DnsDaemon> server_;
};

std::unique_ptr<herald::test::TempDir> OnlineServer::dir_;
std::unique_ptr<DnsDaemon> OnlineServer::server_;

constexpr const char* kValidated = "; fully validated";
constexpr const char* kNegativeValidated = "; negative response, fully validated";

struct DelvCase {
  const char* name;
  std::vector<std::string> query;
  const char* verdict;
};

// Every answer class, under each key set: names relative to the zone
// ("@" is the apex), so one list serves the three zones.
TEST_F(OnlineServer, EveryAnswerClassValidatesWithDelvUnderEachAlgorithmAndKeySplit) {
  const DelvCase cases[] = {
      {"positive at the apex", {"@", "MX"}, kValidated},
      {"positive, mixed-case query name", {"Web.", "A"}, kValidated},
      {"cname chain", {"www.", "A"}, kValidated},
      {"srv", {"_sip._tcp.", "SRV"}, kValidated},
      {"rdata names in mixed case", {"person.", "RP"}, kValidated},
      {"svcb", {"svc.", "SVCB"}, kValidated},
      {"wildcard", {"foo.wild.", "TXT"}, kValidated},
      {"wildcard cname", {"q.wc.", "A"}, kValidated},
      {"name that does not exist", {"nope.", "A"}, kNegativeValidated},
      {"deeper name that does not exist", {"a.b.c.nope.", "AAAA"}, kNegativeValidated},
      {"type that does not exist", {"web.", "MX"}, kNegativeValidated},
      {"empty non-terminal", {"b.ent.", "A"}, kNegativeValidated},
      {"wildcard nodata", {"foo.wild.", "MX"}, kNegativeValidated},
      {"ds at an unsigned cut", {"insecure.", "DS"}, kNegativeValidated},
      {"ds at a signed cut", {"secure.", "DS"}, kValidated},
      {"dnskey", {"@", "DNSKEY"}, kValidated},
      {"dname", {"moved.", "DNAME"}, kValidated},
      {"over tcp", {"www.", "A", "+tcp"}, kValidated},
      {"denial over tcp", {"nope.", "A", "+tcp"}, kNegativeValidated},
  };
  const struct {
    const char* anchor;
    std::string zone;
  } zones[] = {{"online.anchor", "online.example."},
               {"ed25519.anchor", "ed25519.example."},
               {"split.anchor", "split.example."}};
  for (const auto& z : zones) {
    for (const DelvCase& c : cases) {
      std::vector<std::string> query = c.query;
      query[0] = query[0] == "@" ? z.zone : query[0] + z.zone;
      const std::string out = delv(z.anchor, z.zone, query);
      EXPECT_NE(out.find(c.verdict), std::string::npos) << z.zone << " " << c.name << ":\n" << out;
    }
  }
}

TEST_F(OnlineServer, AnAnchorOnAnotherKeyValidatesNothing) {
  for (std::vector<std::string> q : {std::vector<std::string>{"www.online.example", "A"},
                                     std::vector<std::string>{"nope.online.example", "A"}}) {
    const std::string out = delv("wrong.anchor", "online.example.", q);
    EXPECT_EQ(out.find("fully validated"), std::string::npos) << out;
  }
}

TEST_F(OnlineServer, KdigSeesACompactDenialOnTheWire) {
  test::KdigResult r = kdig(server_->port(), {"+dnssec", "nope.online.example", "A"});
  EXPECT_EQ(r.status, "NOERROR");
  EXPECT_EQ(r.answer, 0);
  EXPECT_EQ(r.authority, 4);  // SOA, its RRSIG, the NSEC, its RRSIG
  EXPECT_NE(r.text.find("\\000.nope.online.example. RRSIG NSEC TYPE128"), std::string::npos)
      << r.text;
  // Without DO the same name is NXDOMAIN, unsigned.
  r = kdig(server_->port(), {"nope.online.example", "A"});
  EXPECT_EQ(r.status, "NXDOMAIN");
  EXPECT_EQ(r.text.find("RRSIG"), std::string::npos) << r.text;
}

TEST_F(OnlineServer, ARepeatedQueryIsAnsweredFromTheSignatureCache) {
  auto metric = [](const std::string& series) {
    return herald::test::metric_value(
        herald::test::http_get("127.0.0.1", server_->http_port, "/metrics").body, series);
  };
  const double hits = metric("herald_dns_signature_cache_total{result=\"hit\"}");
  const double signatures = metric("herald_dns_signatures_total");
  // Three times over UDP: the shards' sockets share the queries, so with
  // two shards at least two reach the same one, and the later of those
  // finds the SOA's and the NSEC's signatures in its cache.
  for (int i = 0; i < 3; ++i) {
    (void)kdig(server_->port(), {"+dnssec", "cache.test.online.example", "TXT"});
  }
  EXPECT_GE(metric("herald_dns_signature_cache_total{result=\"hit\"}"), hits + 2);
  EXPECT_GE(metric("herald_dns_signatures_total"), signatures + 1);
  EXPECT_EQ(metric("herald_dns_signing_failures_total"), 0);
}

TEST(OnlineServerStart, AKeysDirectoryThatCannotBeReadServesNoZoneUnsigned) {
  herald::test::TempDir dir("herald-online-nokeys");
  std::ofstream(dir.path / "online.example.zone") << test::online_zone_text("online.example.");
  DnsDaemon server({"--dns.keys_dir", (dir.path / "missing").string(), "--dns.discovery_zone", ""},
                   dir.path.string());
  EXPECT_EQ(kdig(server.port(), {"www.online.example", "A"}).status, "REFUSED");
  const std::string log = server.d.proc->output();
  EXPECT_NE(log.find("cannot read dns.keys_dir"), std::string::npos) << log;
  EXPECT_NE(log.find("would be served unsigned"), std::string::npos) << log;
}

}  // namespace
}  // namespace herald::dns
