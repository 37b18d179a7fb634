// Zone building (checks with file:line, empty non-terminals, canonical
// order, NSEC/NSEC3 indexes) and the zone database (longest match without
// allocation, directory loading, a bad zone left out while the rest load).
#include "dns/zone_db.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "support/alloc_counter.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using test::name;

ZoneLoad build(const std::string& text, const char* origin = "example.com.") {
  ZoneOptions opt;
  opt.origin = name(origin);
  return build_zone(opt.origin, parse_zone_text(text, "t.zone", opt));
}

std::string errors(const ZoneLoad& z) {
  std::string s;
  for (const auto& e : z.errors) s += e.to_string() + "\n";
  return s;
}

constexpr const char* kHead =
    "$TTL 300\n"
    "@ SOA ns hostmaster 1 2 3 4 60\n"
    "@ NS ns\n"
    "ns A 192.0.2.1\n";

TEST(ZoneBuild, ZoneLevelErrorsNameFileAndLine) {
  struct Case {
    const char* name;
    std::string text;
    std::string want;  // the expected error list
  };
  const Case cases[] = {
      {"cname_beside_data", std::string(kHead) + "www CNAME ns\nwww A 192.0.2.2\n",
       "t.zone:6:1: A beside a CNAME at www.example.com. (RFC 2181 §10.1)\n"},
      {"two_cnames", std::string(kHead) + "www CNAME ns\nwww CNAME x\n",
       "t.zone:5:1: more than one CNAME at www.example.com.\n"},
      {"two_dnames", std::string(kHead) + "d DNAME a.\nd DNAME b.\n",
       "t.zone:5:1: more than one DNAME at d.example.com.\n"},
      {"soa_below_apex", std::string(kHead) + "sub SOA ns hm 1 2 3 4 5\n",
       "t.zone:5:1: SOA at sub.example.com., not at the apex\n"},
      {"two_soas", std::string(kHead) + "@ SOA ns hm 2 2 3 4 5\n",
       "t.zone:2:1: more than one SOA record at the apex\n"},
      {"no_soa", "$TTL 300\n@ NS ns\nns A 192.0.2.1\n",
       "t.zone:0:1: no SOA record at the apex example.com.\n"},
      {"no_apex_ns", "$TTL 300\n@ SOA ns hm 1 2 3 4 5\n",
       "t.zone:2:1: no NS records at the apex example.com.\n"},
      {"out_of_zone", std::string(kHead) + "www.example.org. A 192.0.2.9\n",
       "t.zone:5:1: owner www.example.org. is outside the zone example.com.\n"},
      {"class_ch", std::string(kHead) + "x CH TXT \"a\"\n",
       "t.zone:5:1: class CH: only IN zones are served\n"},
      {"nsec3param_iterations", std::string(kHead) + "@ NSEC3PARAM 1 0 101 -\n",
       "t.zone:5:1: NSEC3PARAM has 101 iterations, over dns.max_nsec3_iterations (100); RFC "
       "9276 asks for 0: re-sign the zone with 0 iterations and no salt (ldns-signzone -n -t "
       "0)\n"},
      // A chain of NSEC3 records over the limit: one error, at the first.
      {"nsec3_iterations",
       std::string(kHead) +
           "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom NSEC3 1 0 2500 - 0p9mhaveqvm6t7vbl5lop2u3t2rp3tom "
           "A\n"
           "1p9mhaveqvm6t7vbl5lop2u3t2rp3tom NSEC3 1 0 2500 - 0p9mhaveqvm6t7vbl5lop2u3t2rp3tom "
           "A\n",
       "t.zone:5:1: NSEC3 has 2500 iterations, over dns.max_nsec3_iterations (100); RFC 9276 "
       "asks for 0: re-sign the zone with 0 iterations and no salt (ldns-signzone -n -t 0)\n"},
      {"orphan_rrsig",
       std::string(kHead) + "x RRSIG A 13 3 300 20400101000000 20240101000000 1 example.com. "
                            "AAAA\n",
       "t.zone:5:1: RRSIG covers A but x.example.com. has no such records\n"},
  };
  std::set<std::string> seen;
  for (const Case& c : cases) {
    ASSERT_TRUE(seen.insert(c.name).second) << "duplicate case " << c.name;
    ZoneLoad z = build(c.text);
    EXPECT_EQ(z.zone, nullptr) << c.name;
    EXPECT_EQ(errors(z), c.want) << c.name;
  }
}

// The limit is the operator's: at it a zone loads, and 0 refuses any
// iterations.
TEST(ZoneBuild, Nsec3IterationsUpToTheLimitLoad) {
  const std::string text = std::string(kHead) + "@ NSEC3PARAM 1 0 100 -\n";
  ZoneLoad at_default = build(text);
  EXPECT_NE(at_default.zone, nullptr) << errors(at_default);
  ZoneOptions opt;
  opt.origin = name("example.com.");
  ZoneLoad strict = build_zone(opt.origin, parse_zone_text(text, "t.zone", opt),
                               ZoneLimits{.max_nsec3_iterations = 0});
  EXPECT_EQ(strict.zone, nullptr);
  EXPECT_NE(errors(strict).find("over dns.max_nsec3_iterations (0)"), std::string::npos)
      << errors(strict);
}

TEST(ZoneBuild, EmptyNonTerminalsWildcardsCutsAndCanonicalOrder) {
  ZoneLoad z = build(std::string(kHead) +
                     "a.b.ent A 192.0.2.7\n"
                     "*.wild A 192.0.2.8\n"
                     "sub NS ns.sub\n"
                     "ns.sub A 192.0.2.9\n"
                     "ns.sub A 192.0.2.9\n"  // identical: merged
                     "www CNAME ns\n"
                     "www NSEC zz CNAME NSEC\n");
  ASSERT_NE(z.zone, nullptr) << errors(z);
  const Zone& zone = *z.zone;
  EXPECT_TRUE(zone.origin().iequals(name("example.com.")));
  // ent and b.ent exist with no records (RFC 4592 §2.2.2).
  for (const char* ent : {"ent.example.com.", "b.ent.example.com.", "wild.example.com."}) {
    std::uint32_t n = zone.find(name(ent));
    ASSERT_NE(n, kNoNode) << ent;
    EXPECT_TRUE(zone.node(n).rrsets.empty() || std::string(ent) == "wild.example.com.") << ent;
  }
  EXPECT_TRUE(zone.node(zone.find(name("b.ent.example.com."))).rrsets.empty());
  std::uint32_t wild = zone.find(name("WILD.example.COM."));  // case-insensitive
  ASSERT_NE(wild, kNoNode);
  ASSERT_NE(zone.node(wild).wildcard, kNoNode);
  EXPECT_EQ(zone.node(zone.node(wild).wildcard).name.to_text(), "*.wild.example.com.");
  std::uint32_t sub = zone.find(name("sub.example.com."));
  EXPECT_TRUE(zone.node(sub).cut);
  std::uint32_t glue = zone.find(name("ns.sub.example.com."));
  EXPECT_TRUE(zone.node(glue).occluded);
  EXPECT_EQ(zone.node(glue).find(type::A)->rdatas.size(), 1u);
  EXPECT_EQ(zone.node(glue).parent, sub);
  // Canonical order (RFC 4034 §6.1), apex first.
  for (std::uint32_t i = 1; i < zone.node_count(); ++i) {
    EXPECT_LT(zone.node(i - 1).name.canonical_compare(zone.node(i).name), 0) << i;
  }
  EXPECT_EQ(zone.negative_ttl(), 60u);
  EXPECT_EQ(zone.negative_soa().ttl, 60u);
  // The only NSEC is at www: it matches www and covers what follows it.
  EXPECT_EQ(zone.nsec_for(name("www.example.com.")), zone.find(name("www.example.com.")));
  EXPECT_EQ(zone.nsec_for(name("x.example.com.")), zone.find(name("www.example.com.")));
}

TEST(ZoneBuild, SignedZonesIndexNsecAndNsec3) {
  const std::string dir = HERALD_DNS_TEST_DATA "/server/";
  ZoneLoad nsec = load_zone_file(dir + "signed.example.zone", name("signed.example."));
  ASSERT_NE(nsec.zone, nullptr) << errors(nsec);
  EXPECT_TRUE(nsec.zone->presigned());
  EXPECT_FALSE(nsec.zone->has_nsec3());
  const Node& apex = nsec.zone->apex();
  EXPECT_FALSE(apex.find(type::SOA)->sigs.empty());
  EXPECT_FALSE(apex.find(type::DNSKEY)->sigs.empty());
  // nope.signed.example sorts after mail and before ns1 ('o' < 's').
  EXPECT_EQ(nsec.zone->node(nsec.zone->nsec_for(name("nope.signed.example."))).name.to_text(),
            "mail.signed.example.");

  ZoneLoad n3 = load_zone_file(dir + "nsec3.example.zone", name("nsec3.example."));
  ASSERT_NE(n3.zone, nullptr) << errors(n3);
  EXPECT_TRUE(n3.zone->has_nsec3());
  EXPECT_EQ(n3.zone->nsec3_params().iterations, 0);
  // NSEC3 owners are not names of the tree.
  EXPECT_EQ(n3.zone->find(name("krsatb3pjbkrjutskf89t5ms899d2udp.nsec3.example.")), kNoNode);
}

std::shared_ptr<const ZoneDb> db_of(std::initializer_list<const char*> origins) {
  std::vector<std::shared_ptr<const Zone>> zones;
  for (const char* o : origins) {
    ZoneLoad z = build(kHead, o);
    EXPECT_NE(z.zone, nullptr) << o << errors(z);
    zones.push_back(z.zone);
  }
  return std::make_shared<ZoneDb>(std::move(zones));
}

TEST(ZoneDb, LongestMatchCaseInsensitive) {
  auto db = db_of({"com.", "example.com.", "a.b.example.com.", "example.org."});
  auto origin_of = [&](const char* q) -> std::string {
    const Zone* z = db->find(name(q));
    return z == nullptr ? "none" : z->origin().to_text();
  };
  EXPECT_EQ(origin_of("www.example.com."), "example.com.");
  EXPECT_EQ(origin_of("EXAMPLE.COM."), "example.com.");
  EXPECT_EQ(origin_of("x.b.example.com."), "example.com.");
  EXPECT_EQ(origin_of("x.A.B.example.com."), "a.b.example.com.");
  EXPECT_EQ(origin_of("a.b.example.com."), "a.b.example.com.");
  EXPECT_EQ(origin_of("other.com."), "com.");
  EXPECT_EQ(origin_of("example.net."), "none");
  EXPECT_EQ(origin_of("."), "none");
  EXPECT_EQ(origin_of("x.y.z.w.v.u.example.org."), "example.org.");
  ASSERT_NE(db->find_exact(name("a.b.example.com.")), nullptr);
  EXPECT_EQ(db->find_parent(*db->find_exact(name("a.b.example.com.")))->origin().to_text(),
            "example.com.");
  EXPECT_EQ(db->find_parent(*db->find_exact(name("com."))), nullptr);
}

TEST(ZoneDb, LookupAllocatesNothing) {
  auto db = db_of({"example.com.", "example.org."});
  Name q = name("deep.www.example.com.");
  Name miss = name("www.example.net.");
  Name ns = name("ns.example.com.");
  herald::test::AllocationScope scope;
  const Zone* z = db->find(q);
  const Zone* none = db->find(miss);
  std::uint32_t node = z->find(ns);
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_NE(z, nullptr);
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(node, kNoNode);
}

TEST(ZoneDb, TwentyThousandZones) {
  std::vector<std::shared_ptr<const Zone>> zones;
  for (int i = 0; i < 20000; ++i) {
    std::string o = "zone" + std::to_string(i) + ".test.";
    ZoneLoad z = build(kHead, o.c_str());
    zones.push_back(z.zone);
  }
  ZoneDb db(std::move(zones));
  EXPECT_EQ(db.size(), 20000u);
  for (int i = 0; i < 20000; i += 997) {
    std::string q = "www.ZONE" + std::to_string(i) + ".test.";
    const Zone* z = db.find(name(q));
    ASSERT_NE(z, nullptr) << q;
    EXPECT_EQ(z->origin().to_text(), "zone" + std::to_string(i) + ".test.");
  }
  EXPECT_EQ(db.find(name("zone20000.test.")), nullptr);
}

TEST(ZoneDb, DirectoryLoadLeavesBadZonesOutAndServesTheRest) {
  namespace fs = std::filesystem;
  test::TempDir tmp("herald-zone-db");
  const fs::path& dir = tmp.path;
  auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream(dir / file) << text;
  };
  write("good.example.zone", kHead);
  write("also.good.example.zone", kHead);
  write("README", "not a zone: skipped");
  write("bad.example.zone",
        std::string(kHead) + "www CNAME ns\nwww TXT \"x\"\nbroken A 999.1.1.1\n");
  write(".hidden.zone", "not a zone");
  std::vector<ZoneError> errs;
  auto sources = zone_directory(dir.string(), errs);
  EXPECT_TRUE(errs.empty());
  ASSERT_EQ(sources.size(), 3u);
  DbLoad load = load_zones(sources);
  EXPECT_EQ(load.failed, 1u);
  ASSERT_EQ(load.db->size(), 2u);
  EXPECT_NE(load.db->find(name("www.good.example.")), nullptr);
  EXPECT_NE(load.db->find(name("also.good.example.")), nullptr);
  EXPECT_EQ(load.db->find(name("www.bad.example.")), nullptr);
  // The parse error comes first; the zone checks still ran over the records
  // that parsed, so one load reports every problem.
  ASSERT_EQ(load.errors.size(), 2u);
  EXPECT_EQ(load.errors[0].file, (dir / "bad.example.zone").string());
  EXPECT_EQ(load.errors[0].line, 7u);
  EXPECT_EQ(load.errors[1].file, (dir / "bad.example.zone").string());
  EXPECT_EQ(load.errors[1].line, 6u);
  EXPECT_NE(load.errors[1].message.find("beside a CNAME"), std::string::npos);
}

TEST(ZoneDb, StoreSwapsWholeDatabases) {
  ZoneStore store;
  EXPECT_EQ(store.get()->size(), 0u);
  auto first = db_of({"example.com."});
  store.set(first);
  auto held = store.get();  // a reader in the middle of a batch
  store.set(db_of({"example.com.", "example.org."}));
  EXPECT_EQ(held->size(), 1u);  // the old one lives while it is held
  EXPECT_EQ(store.get()->size(), 2u);
}

}  // namespace
}  // namespace herald::dns
