// Answers from zones signed online (RFC 9824 compact denial), one named
// case per row of its answer table and per query-type rule, through the
// real load path (key directory, zone files) and the responder.
//
// The oracle is ldns: it reads each response from the wire itself, groups
// the RRsets, and verifies every RRSIG with the zone's DNSKEYs taken from
// the key files (not from our answers), at the instant the answer was
// signed. Each case pins the response's RRsets, which are signed by which
// key tag, and the NSEC next names and bitmaps as ldns prints them
// (TYPE128 is NXNAME, which ldns 1.8 does not name).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "../test_util.hpp"
#include "dns/decoder.hpp"
#include "dns/responder.hpp"
#include "dns/signing/key_directory.hpp"
#include "dns/signing/zone_keys.hpp"
#include "ldns_oracle.hpp"
#include "online_zone.hpp"
#include "support/alloc_counter.hpp"

namespace herald::dns {
namespace {

using test::name;
using test::Query;
using test::TempDir;

constexpr std::uint32_t kNow = 1796083200;  // 2026-12-01
const std::string kKeys = test::kOnlineData + "/keys";

// online.example. (ECDSA CSK 11254), ed25519.example. (Ed25519 CSK 36831),
// split.example. (ECDSA KSK 34179, ZSK 18214), each from the same zone
// file, plus an unsigned zone.
class OnlineZones : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<ZoneSource> sources;
    for (const char* z : {"online.example.", "ed25519.example.", "split.example."}) {
      const std::string path = (dir_.path / (std::string(z) + "zone")).string();
      std::ofstream(path) << test::online_zone_text(z);
      sources.push_back({name(z), path, {}});
    }
    const std::string plain = (dir_.path / "plain.example.zone").string();
    std::ofstream(plain)
        << "$ORIGIN plain.example.\n$TTL 300\n"
           "@ SOA ns hostmaster 1 7200 3600 1209600 300\n@ NS ns\nns A 192.0.2.9\n";
    sources.push_back({name("plain.example."), plain, {}});
    std::vector<ZoneError> errors;
    auto keys = signing::KeyDirectory::scan(kKeys, errors);
    EXPECT_EQ(signing::attach_keys(keys, sources, errors), 0u);
    DbLoad load = load_zones(sources);
    for (const auto& e : errors) ADD_FAILURE() << e.to_string();
    for (const auto& e : load.errors) ADD_FAILURE() << e.to_string();
    db_ = load.db;
  }

  // The zone's DNSKEYs as ldns will trust them: from the .key files.
  static std::vector<std::string> dnskeys(const std::string& zone) {
    std::vector<std::string> out;
    std::vector<ZoneError> errors;
    auto keys = signing::KeyDirectory::scan(kKeys, errors);
    for (const std::string& f : keys.files_for(name(zone))) {
      std::ifstream in(f.substr(0, f.size() - 8) + ".key");
      for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line[0] != ';') out.push_back(line);
      }
    }
    return out;
  }

  struct Answer {
    Message message;
    Outcome outcome;
    test::CheckedResponse checked;
  };

  Answer ask(const Query& q, const std::string& zone = "online.example.",
             std::uint32_t now = kNow) {
    std::vector<std::uint8_t> out;
    Answer a;
    a.outcome =
        responder_.respond(*db_, test::query_wire(q), Transport::tcp, out, false, Client{{}, now});
    auto m = decode(out);
    EXPECT_TRUE(m) << (m ? "" : m.error().to_string());
    if (m) a.message = std::move(*m);
    a.checked = test::ldns_check_response(out, dnskeys(zone), now);
    for (const std::string& e : a.checked.errors) ADD_FAILURE() << e;
    return a;
  }

  static Query dnssec(std::string qname, RRType t) {
    Query q{std::move(qname), t};
    q.dnssec_ok = true;
    return q;
  }

  TempDir dir_{"herald-online"};
  std::shared_ptr<const ZoneDb> db_;
  Responder responder_;
};

Rcode rcode_of(const Message& m) {
  return static_cast<Rcode>(m.header.rcode);
}

TEST_F(OnlineZones, APositiveAnswerIsSignedWithItsAuthorityAndAdditionalRecords) {
  Answer a = ask(dnssec("online.example.", type::MX));
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_TRUE(a.message.header.aa);
  EXPECT_EQ(a.checked.rrsets,
            "an online.example. MX sig:11254\n"
            "au online.example. NS sig:11254\n"
            "ad mail.online.example. A sig:11254\n"
            "ad mail2.online.example. A sig:11254\n"
            "ad ns1.online.example. A sig:11254");
  EXPECT_EQ(a.outcome.signing.signatures, 5);
}

TEST_F(OnlineZones, WithoutDnssecOkNothingIsSignedAndANameThatDoesNotExistIsNxdomain) {
  Answer a = ask(Query{"nope.online.example.", type::A});
  EXPECT_EQ(rcode_of(a.message), Rcode::nxdomain);
  EXPECT_EQ(a.checked.rrsets, "au online.example. SOA");
  EXPECT_EQ(a.outcome.signing.signatures, 0);
  a = ask(Query{"web.online.example.", type::A});
  EXPECT_EQ(a.checked.rrsets,
            "an web.online.example. A\nau online.example. NS\nad ns1.online.example. A");
}

TEST_F(OnlineZones, ANameThatDoesNotExistIsNodataWithAnNxnameNsec) {
  Answer a = ask(dnssec("nope.online.example.", type::A));
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_TRUE(a.message.header.aa);
  EXPECT_EQ(a.checked.rrsets,
            "au online.example. SOA sig:11254\n"
            "au nope.online.example. NSEC \\000.nope.online.example. RRSIG NSEC TYPE128 "
            "sig:11254");
  // The negative TTL (RFC 9077: min(SOA TTL, MINIMUM) = 300) on both.
  for (const Record& r : a.message.authority) EXPECT_EQ(r.ttl, 300u) << type_to_text(r.type);
}

TEST_F(OnlineZones, TheCompactAnswersOkBitGetsNxdomainAndIsEchoed) {
  Query q = dnssec("nope.online.example.", type::A);
  q.z = 0x4000;
  Answer a = ask(q);
  EXPECT_EQ(rcode_of(a.message), Rcode::nxdomain);
  ASSERT_TRUE(a.message.edns);
  EXPECT_EQ(a.message.edns->z, 0x4000);
  EXPECT_EQ(a.checked.rrsets,
            "au online.example. SOA sig:11254\n"
            "au nope.online.example. NSEC \\000.nope.online.example. RRSIG NSEC TYPE128 "
            "sig:11254");
  // An existing name is answered as without CO, and CO is echoed.
  q.qname = "web.online.example.";
  a = ask(q);
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_EQ(a.message.edns->z, 0x4000);
  // Without DO, CO means nothing: NXDOMAIN as always, and not echoed.
  q = Query{"nope.online.example.", type::A};
  q.z = 0x4000;
  a = ask(q);
  EXPECT_EQ(rcode_of(a.message), Rcode::nxdomain);
  EXPECT_EQ(a.message.edns->z, 0);
}

TEST_F(OnlineZones, AMissingTypeIsNodataWithTheNamesOwnNsec) {
  Answer a = ask(dnssec("Web.online.example.", type::MX));
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_EQ(a.checked.rrsets,
            "au online.example. SOA sig:11254\n"
            "au web.online.example. NSEC \\000.web.online.example. A RRSIG NSEC sig:11254");
}

TEST_F(OnlineZones, TheApexNsecListsTheDnskeyTheServerAdded) {
  Answer a = ask(dnssec("online.example.", type::SRV));
  EXPECT_EQ(a.checked.rrsets,
            "au online.example. SOA sig:11254\n"
            "au online.example. NSEC \\000.online.example. A NS SOA MX TXT AAAA RRSIG NSEC "
            "DNSKEY sig:11254");
}

TEST_F(OnlineZones, AnEmptyNonTerminalIsNodataWithOnlyRrsigAndNsec) {
  Answer a = ask(dnssec("b.ent.online.example.", type::A));
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_EQ(a.checked.rrsets,
            "au online.example. SOA sig:11254\n"
            "au b.ent.online.example. NSEC \\000.b.ent.online.example. RRSIG NSEC sig:11254");
}

TEST_F(OnlineZones, AWildcardAnswerIsSignedAsTheQueryNameWithNoProof) {
  Answer a = ask(dnssec("a.b.wild.online.example.", type::TXT));
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_EQ(a.checked.rrsets,
            "an a.b.wild.online.example. TXT sig:11254\n"
            "au online.example. NS sig:11254\n"
            "ad ns1.online.example. A sig:11254");
  // RFC 9824 §3.3: the labels field counts QNAME's labels (5), so a
  // validator sees no expansion and wants no proof.
  for (const Record& r : a.message.answers) {
    if (r.type == type::RRSIG) {
      EXPECT_EQ(r.rdata[3], 5);
    }
  }
}

TEST_F(OnlineZones, AWildcardNodataListsTheWildcardsTypesAtTheQueryName) {
  Answer a = ask(dnssec("x.wild.online.example.", type::MX));
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_EQ(a.checked.rrsets,
            "au online.example. SOA sig:11254\n"
            "au x.wild.online.example. NSEC \\000.x.wild.online.example. A TXT RRSIG NSEC "
            "sig:11254");
}

TEST_F(OnlineZones, ACnameChainIsSignedAtEveryStepAndAWildcardCnameToo) {
  Answer a = ask(dnssec("WWW.Online.EXAMPLE.", type::A));
  EXPECT_EQ(a.checked.rrsets,
            "an www.online.example. CNAME sig:11254\n"
            "an web.online.example. A sig:11254\n"
            "au online.example. NS sig:11254\n"
            "ad ns1.online.example. A sig:11254");
  a = ask(dnssec("q.wc.online.example.", type::A));
  EXPECT_EQ(a.checked.rrsets,
            "an q.wc.online.example. CNAME sig:11254\n"
            "an web.online.example. A sig:11254\n"
            "au online.example. NS sig:11254\n"
            "ad ns1.online.example. A sig:11254");
}

TEST_F(OnlineZones, ACnameToANameThatDoesNotExistProvesTheTarget) {
  // www -> Web exists; the wildcard CNAME at *.wc points to Web too. Ask a
  // type Web lacks through the chain: the denial is the target's.
  Answer a = ask(dnssec("www.online.example.", type::MX));
  EXPECT_EQ(a.checked.rrsets,
            "an www.online.example. CNAME sig:11254\n"
            "au online.example. SOA sig:11254\n"
            "au web.online.example. NSEC \\000.web.online.example. A RRSIG NSEC sig:11254");
}

TEST_F(OnlineZones, AnUnsignedDelegationHasAnNsecAndUnsignedNsAndGlue) {
  Answer a = ask(dnssec("host.insecure.online.example.", type::A));
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_FALSE(a.message.header.aa);
  EXPECT_EQ(a.checked.rrsets,
            "au insecure.online.example. NS\n"
            "au insecure.online.example. NSEC insecure\\000.online.example. NS RRSIG NSEC "
            "sig:11254\n"
            "ad ns.insecure.online.example. A");
}

TEST_F(OnlineZones, ASignedDelegationHasASignedDsAndNoNsec) {
  Answer a = ask(dnssec("host.secure.online.example.", type::A));
  EXPECT_FALSE(a.message.header.aa);
  EXPECT_EQ(a.checked.rrsets,
            "au secure.online.example. NS\n"
            "au secure.online.example. DS sig:11254\n"
            "ad ns.secure.online.example. A");
}

TEST_F(OnlineZones, DsQueriesAtCutsAreAnsweredByTheParentSide) {
  Answer a = ask(dnssec("secure.online.example.", type::DS));
  EXPECT_TRUE(a.message.header.aa);
  EXPECT_EQ(a.checked.rrsets, "an secure.online.example. DS sig:11254");
  a = ask(dnssec("insecure.online.example.", type::DS));
  EXPECT_TRUE(a.message.header.aa);
  EXPECT_EQ(rcode_of(a.message), Rcode::noerror);
  EXPECT_EQ(a.checked.rrsets,
            "au online.example. SOA sig:11254\n"
            "au insecure.online.example. NSEC insecure\\000.online.example. NS RRSIG NSEC "
            "sig:11254");
}

TEST_F(OnlineZones, ADnameIsSignedAndTheCnameItMakesIsNot) {
  Answer a = ask(dnssec("a.moved.online.example.", type::A));
  EXPECT_EQ(a.checked.rrsets,
            "an moved.online.example. DNAME sig:11254\n"
            "an a.moved.online.example. CNAME");
}

TEST_F(OnlineZones, TheDnskeyRRsetHoldsTheKeysAndIsSignedByTheKeySigningKey) {
  Answer a = ask(dnssec("online.example.", type::DNSKEY));
  EXPECT_EQ(a.checked.rrsets, "an online.example. DNSKEY sig:11254");
  a = ask(dnssec("split.example.", type::DNSKEY), "split.example.");
  EXPECT_EQ(a.checked.rrsets, "an split.example. DNSKEY sig:34179");
  std::size_t keys = 0;
  for (const Record& r : a.message.answers) keys += r.type == type::DNSKEY ? 1 : 0;
  EXPECT_EQ(keys, 2u);
  // Everything else by the zone-signing key.
  a = ask(dnssec("nope.split.example.", type::A), "split.example.");
  EXPECT_EQ(a.checked.rrsets,
            "au split.example. SOA sig:18214\n"
            "au nope.split.example. NSEC \\000.nope.split.example. RRSIG NSEC TYPE128 sig:18214");
}

TEST_F(OnlineZones, Ed25519SignsEveryAnswerClassToo) {
  const std::string z = "ed25519.example.";
  Answer a = ask(dnssec("www.ed25519.example.", type::A), z);
  EXPECT_EQ(a.checked.rrsets,
            "an www.ed25519.example. CNAME sig:36831\n"
            "an web.ed25519.example. A sig:36831\n"
            "au ed25519.example. NS sig:36831\n"
            "ad ns1.ed25519.example. A sig:36831");
  a = ask(dnssec("nope.ed25519.example.", type::A), z);
  EXPECT_EQ(a.checked.rrsets,
            "au ed25519.example. SOA sig:36831\n"
            "au nope.ed25519.example. NSEC \\000.nope.ed25519.example. RRSIG NSEC TYPE128 "
            "sig:36831");
  a = ask(dnssec("ed25519.example.", type::DNSKEY), z);
  EXPECT_EQ(a.checked.rrsets, "an ed25519.example. DNSKEY sig:36831");
}

TEST_F(OnlineZones, AnNsecQueryGetsTheNamesNsecAndAnRrsigQueryIsRefused) {
  Answer a = ask(dnssec("web.online.example.", type::NSEC));
  EXPECT_EQ(a.checked.rrsets,
            "an web.online.example. NSEC \\000.web.online.example. A RRSIG NSEC sig:11254");
  a = ask(dnssec("web.online.example.", type::RRSIG));
  EXPECT_EQ(rcode_of(a.message), Rcode::refused);
  ASSERT_TRUE(a.message.edns && a.message.edns->extended_error());
  EXPECT_EQ(a.message.edns->extended_error()->info_code, ede::kNotSupported);
}

TEST_F(OnlineZones, AQueryForNxnameIsFormerrWithInvalidQueryType) {
  for (const char* qname : {"web.online.example.", "ns.plain.example."}) {
    Answer a = ask(dnssec(qname, type::NXNAME));
    EXPECT_EQ(rcode_of(a.message), Rcode::formerr) << qname;
    ASSERT_TRUE(a.message.edns && a.message.edns->extended_error());
    EXPECT_EQ(a.message.edns->extended_error()->info_code, ede::kInvalidQueryType);
    EXPECT_TRUE(a.message.answers.empty() && a.message.authority.empty());
  }
}

TEST_F(OnlineZones, AZoneWithoutKeysIsNotSigned) {
  Answer a = ask(dnssec("nope.plain.example.", type::A));
  EXPECT_EQ(rcode_of(a.message), Rcode::nxdomain);
  EXPECT_EQ(a.checked.rrsets, "au plain.example. SOA");
}

TEST_F(OnlineZones, SignaturesAreValidFromAnHourAgoForAWeek) {
  Answer a = ask(dnssec("web.online.example.", type::A));
  ASSERT_FALSE(a.message.answers.empty());
  const Record& sig = a.message.answers.back();
  ASSERT_EQ(sig.type, type::RRSIG);
  auto u32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(sig.rdata[at] << 24 | sig.rdata[at + 1] << 16 |
                                      sig.rdata[at + 2] << 8 | sig.rdata[at + 3]);
  };
  EXPECT_EQ(u32(8), kNow + 7 * 86400);  // expiration
  EXPECT_EQ(u32(12), kNow - 3600);      // inception
  EXPECT_EQ(u32(4), 3600u);             // original TTL: the RRset's
  EXPECT_EQ(sig.ttl, 3600u);
}

TEST_F(OnlineZones, ARepeatedAnswerTakesItsSignaturesFromTheCache) {
  Answer a = ask(dnssec("web.online.example.", type::A));
  EXPECT_EQ(a.outcome.signing.misses, 3);  // web A, the apex NS, ns1 A
  EXPECT_EQ(a.outcome.signing.signatures, 3);
  a = ask(dnssec("WEB.online.example.", type::A));  // any case: the same owner
  EXPECT_EQ(a.outcome.signing.hits, 3);
  EXPECT_EQ(a.outcome.signing.misses, 0);
  EXPECT_EQ(a.outcome.signing.signatures, 0);
  EXPECT_EQ(a.checked.rrsets,
            "an web.online.example. A sig:11254\n"
            "au online.example. NS sig:11254\n"
            "ad ns1.online.example. A sig:11254");
}

TEST_F(OnlineZones, ASignatureNearItsExpirationIsMadeAnew) {
  (void)ask(dnssec("web.online.example.", type::A));
  // With a week's validity and a day's refresh: six days on it still
  // serves; a second later it has less than a day left.
  const std::uint32_t later = kNow + 6 * 86400;
  Answer a = ask(dnssec("web.online.example.", type::A), "online.example.", later);
  EXPECT_EQ(a.outcome.signing.hits, 3);
  a = ask(dnssec("web.online.example.", type::A), "online.example.", later + 1);
  EXPECT_EQ(a.outcome.signing.stale, 3);
  EXPECT_EQ(a.outcome.signing.signatures, 3);
  // The new signatures run from the new time.
  const Record& sig = a.message.answers.back();
  ASSERT_EQ(sig.type, type::RRSIG);
  EXPECT_EQ(sig.rdata[8] << 24 | sig.rdata[9] << 16 | sig.rdata[10] << 8 | sig.rdata[11],
            static_cast<int>(later + 1 + 7 * 86400));
}

TEST_F(OnlineZones, WithTheCacheOffEveryAnswerIsSignedAfresh) {
  ResponderOptions opt;
  opt.signatures.cache_entries = 0;
  responder_ = Responder(opt);
  (void)ask(dnssec("web.online.example.", type::A));
  Answer a = ask(dnssec("web.online.example.", type::A));
  EXPECT_EQ(a.outcome.signing.hits, 0);
  EXPECT_EQ(a.outcome.signing.signatures, 3);
}

TEST_F(OnlineZones, AFloodOfNamesTheZoneDoesNotHoldEvictsNoSignatureOfOneItHolds) {
  ResponderOptions opt;
  opt.signatures.cache_entries = 64;  // 16 sets; the denials' table has 8 entries
  responder_ = Responder(opt);
  (void)ask(dnssec("web.online.example.", type::A));
  for (int i = 0; i < 500; ++i) {
    Answer a = ask(dnssec("r" + std::to_string(i) + ".online.example.", type::A));
    // The NSEC, and the negative SOA the first time only: it stays cached.
    ASSERT_EQ(a.outcome.signing.signatures, i == 0 ? 2 : 1) << i;
  }
  // And under a wildcard: a signed answer per name, none of it kept in the
  // table of the names the zone holds.
  for (int i = 0; i < 500; ++i) {
    Answer w = ask(dnssec("r" + std::to_string(i) + ".wild.online.example.", type::A));
    ASSERT_EQ(w.outcome.signing.misses, 1) << i;  // the A; the apex NS and ns1 A are cached
  }
  Answer a = ask(dnssec("web.online.example.", type::A));
  EXPECT_EQ(a.outcome.signing.hits, 3);
  EXPECT_EQ(a.outcome.signing.signatures, 0);
}

TEST_F(OnlineZones, SigningFromTheCacheAddsNoAllocationToAnAnswer) {
  // Decoding a query allocates (its question list); the responder does
  // not. So the same queries with and without DO must allocate alike once
  // the signatures are cached.
  const char* names[] = {"www.online.example.", "nope.online.example.",
                         "host.insecure.online.example.", "x.wild.online.example."};
  std::vector<std::vector<std::uint8_t>> signed_queries, plain_queries;
  for (const char* n : names) {
    signed_queries.push_back(test::query_wire(dnssec(n, type::A)));
    plain_queries.push_back(test::query_wire(Query{n, type::A}));
  }
  std::vector<std::uint8_t> out;
  auto run = [&](const std::vector<std::vector<std::uint8_t>>& queries) {
    std::uint16_t signatures = 0;
    const herald::test::AllocationScope scope;
    for (int i = 0; i < 50; ++i) {
      for (const auto& q : queries) {
        signatures +=
            responder_.respond(*db_, q, Transport::udp, out, false, {{}, kNow}).signing.signatures;
      }
    }
    EXPECT_EQ(signatures, 0);
    return scope.count();
  };
  (void)run(plain_queries);
  for (const auto& q : signed_queries) {
    (void)responder_.respond(*db_, q, Transport::udp, out, false, {{}, kNow});
  }
  EXPECT_EQ(run(signed_queries), run(plain_queries));
}

// The load path: what a zone signed online may not hold.
std::vector<ZoneError> load_errors(const std::string& extra) {
  TempDir dir("herald-online-load");
  const std::string path = (dir.path / "online.example.zone").string();
  std::ofstream(path) << test::online_zone_text("online.example.") << extra;
  std::vector<ZoneError> errors;
  std::vector<ZoneSource> sources{{name("online.example."), path, {}}};
  auto keys = signing::KeyDirectory::scan(kKeys, errors);
  signing::attach_keys(keys, sources, errors);
  DbLoad load = load_zones(sources);
  EXPECT_EQ(load.failed, 1u);
  for (auto& e : load.errors) errors.push_back(std::move(e));
  return errors;
}

TEST(OnlineZoneLoad, SignaturesOrDenialsInAZoneSignedOnlineAreErrorsAtTheirLine) {
  auto errors = load_errors(
      "web IN NSEC zz.online.example. A RRSIG NSEC\n"
      "web IN RRSIG A 13 3 3600 20270101000000 20261201000000 11254 online.example. "
      "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].message.find("NSEC in a zone signed online (keys: "), std::string::npos)
      << errors[0].to_string();
  EXPECT_NE(errors[0].message.find("Konline.example.+013+11254.private"), std::string::npos);
  EXPECT_EQ(errors[0].line, 45u);
  EXPECT_NE(errors[1].message.find("RRSIG in a zone signed online"), std::string::npos);
  EXPECT_EQ(errors[1].line, 46u);
}

// Keys for a zone nobody serves are not used; unserved() names them, so
// that heraldd can warn (a zone misspelled in dns.zones would otherwise be
// served unsigned without a word). Origins compare in any case.
TEST(OnlineZoneLoad, KeysForZonesNotServedAreNamed) {
  std::vector<ZoneError> errors;
  const auto keys = signing::KeyDirectory::scan(kKeys, errors);
  ASSERT_TRUE(errors.empty());
  const std::vector<ZoneSource> one{{name("ONLINE.example."), "unused", {}}};
  const auto unserved = keys.unserved(one);
  ASSERT_EQ(unserved.size(), 2u);
  EXPECT_EQ(unserved[0].to_text(), "ed25519.example.");
  EXPECT_EQ(unserved[1].to_text(), "split.example.");
  std::vector<ZoneSource> all = one;
  all.push_back({name("ed25519.example."), "unused", {}});
  all.push_back({name("split.example."), "unused", {}});
  EXPECT_TRUE(keys.unserved(all).empty());
}

TEST(OnlineZoneLoad, AKeyDirectoryThatCannotBeReadSaysSo) {
  std::vector<ZoneError> errors;
  auto keys = signing::KeyDirectory::scan(test::kOnlineData + "/no-such-directory", errors);
  EXPECT_FALSE(keys.readable());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("cannot read dns.keys_dir"), std::string::npos);
  EXPECT_TRUE(signing::KeyDirectory::scan(kKeys, errors).readable());
}

TEST(OnlineZoneLoad, ABadKeyLeavesTheZoneOutRatherThanServeItUnsigned) {
  TempDir dir("herald-online-keys");
  std::filesystem::copy(kKeys + "/Konline.example.+013+11254.key",
                        dir.path / "Konline.example.+013+11254.key");
  std::ofstream(dir.path / "Konline.example.+013+11254.private")
      << "Private-key-format: v1.3\nAlgorithm: 13 (ECDSAP256SHA256)\nPrivateKey: "
      << std::string(44, 'A') << "\n";
  const std::string path = (dir.path / "online.example.zone").string();
  std::ofstream(path) << test::online_zone_text("online.example.");
  std::vector<ZoneError> errors;
  std::vector<ZoneSource> sources{{name("online.example."), path, {}}};
  auto keys = signing::KeyDirectory::scan(dir.path.string(), errors);
  EXPECT_EQ(signing::attach_keys(keys, sources, errors), 1u);
  EXPECT_TRUE(sources.empty());
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].line, 3u);
  EXPECT_NE(errors[0].message.find("PrivateKey holds 33 octets"), std::string::npos);
  EXPECT_NE(errors[1].message.find("not served"), std::string::npos);
}

TEST(OnlineZoneLoad, TheKeySigningKeySignsTheDnskeysAndTheZoneSigningKeyTheRest) {
  const std::string ksk = kKeys + "/Ksplit.example.+013+34179.private";
  const std::string zsk = kKeys + "/Ksplit.example.+013+18214.private";
  auto keys = signing::ZoneKeys::load(name("split.example."), std::vector<std::string>{ksk, zsk});
  ASSERT_TRUE(keys);
  const signing::ZoneKeys& k = **keys;
  ASSERT_EQ(k.signers_for(type::DNSKEY, true).size(), 1u);
  EXPECT_EQ(k.key(k.signers_for(type::DNSKEY, true)[0]).tag, 34179);
  // A DNSKEY below the apex is no key set of ours: the ZSK signs it.
  EXPECT_EQ(k.key(k.signers_for(type::DNSKEY, false)[0]).tag, 18214);
  EXPECT_EQ(k.key(k.signers_for(type::A, true)[0]).tag, 18214);
}

TEST(OnlineZoneLoad, KeysOfTwoAlgorithmsOrMoreThanTwoSignersAreRefused) {
  // two-algorithms/: online.example.'s ECDSA key and an Ed25519 one.
  std::vector<ZoneError> errors;
  auto dir = signing::KeyDirectory::scan(test::kOnlineData + "/two-algorithms", errors);
  auto two =
      signing::ZoneKeys::load(name("online.example."), dir.files_for(name("online.example.")));
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().front().message.find("two algorithms (13 and 15)"), std::string::npos)
      << two.error().front().to_string();
  // One ZSK three times: three signers for every RRset.
  const std::string zsk = kKeys + "/Ksplit.example.+013+18214.private";
  auto three =
      signing::ZoneKeys::load(name("split.example."), std::vector<std::string>{zsk, zsk, zsk});
  ASSERT_FALSE(three);
  EXPECT_NE(three.error().front().message.find("more than 2 would sign one RRset"),
            std::string::npos)
      << three.error().front().to_string();
}

}  // namespace
}  // namespace herald::dns
