// The responder as a pure function: queries (wire) in, responses (wire)
// out, against the test zones of data/server. Each named case pins the
// rcode, AA and the three sections (owner and type of each record, sorted;
// RRSIGs as RRSIG/<covered>). The full RDATA of every case is compared with
// NSD's answers by the differential test (tests/dns/server/nsd_diff_test.cpp).
#include "dns/responder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "support/alloc_counter.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using test::name;

const std::string kDir = HERALD_DNS_TEST_DATA "/server/";

std::shared_ptr<const ZoneDb> test_db() {
  std::vector<ZoneSource> sources;
  for (const char* z :
       {"example.com", "example.net", "child.example.com", "signed.example", "nsec3.example"}) {
    sources.push_back({name(std::string(z) + "."), kDir + z + ".zone"});
  }
  DbLoad load = load_zones(sources);
  for (const auto& e : load.errors) ADD_FAILURE() << e.to_string();
  return load.db;
}

using test::Query;

Message ask(Responder& r, const ZoneDb& db, const Query& q, Transport t = Transport::udp) {
  std::vector<std::uint8_t> out;
  Outcome o = r.respond(db, test::query_wire(q), t, out);
  EXPECT_FALSE(o.drop);
  auto m = decode(out);
  EXPECT_TRUE(m) << (m ? "" : m.error().to_string());
  return m ? m.value() : Message{};
}

std::string section(const std::vector<Record>& rs) {
  std::vector<std::string> lines;
  for (const Record& r : rs) {
    std::string s = r.owner.lowercased().to_text() + " " + type_to_text(r.type);
    if (r.type == type::RRSIG)
      s += "/" + type_to_text(RRType{static_cast<std::uint16_t>(r.rdata[0] << 8 | r.rdata[1])});
    lines.push_back(s);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "; ") + l;
  return out;
}

struct Case {
  const char* name;
  Query q;
  Rcode rcode;
  bool aa;
  const char* answer;
  const char* authority;
  const char* additional;
};

constexpr const char* kNs = "example.com. NS; example.com. NS";
constexpr const char* kNsGlue = "ns1.example.com. A; ns1.example.com. AAAA";
constexpr const char* kSoa = "example.com. SOA";

const Case kCases[] = {
    {"exact_a",
     {"web.example.com.", type::A},
     Rcode::noerror,
     true,
     "web.example.com. A",
     kNs,
     kNsGlue},
    {"mixed_case_qname",
     {"WEB.Example.COM.", type::A},
     Rcode::noerror,
     true,
     "web.example.com. A",
     kNs,
     kNsGlue},
    {"cname_in_zone",
     {"www.example.com.", type::A},
     Rcode::noerror,
     true,
     "web.example.com. A; www.example.com. CNAME",
     kNs,
     kNsGlue},
    {"cname_chain",
     {"chain1.example.com.", type::AAAA},
     Rcode::noerror,
     true,
     "chain1.example.com. CNAME; chain2.example.com. CNAME; web.example.com. AAAA; "
     "www.example.com. CNAME",
     kNs,
     kNsGlue},
    {"cname_loop_ends",
     {"loop1.example.com.", type::A},
     Rcode::noerror,
     true,
     "loop1.example.com. CNAME; loop2.example.com. CNAME",
     "",
     ""},
    {"cname_out_of_our_zones",
     {"ext.example.com.", type::A},
     Rcode::noerror,
     true,
     "ext.example.com. CNAME",
     "",
     ""},
    {"cname_to_other_zone",
     {"other.example.com.", type::A},
     Rcode::noerror,
     true,
     "other.example.com. CNAME; www.example.net. A",
     "example.net. NS",
     ""},
    {"cname_dangling_nxdomain",
     {"dangling.example.com.", type::A},
     Rcode::nxdomain,
     true,
     "dangling.example.com. CNAME",
     kSoa,
     ""},
    {"cname_then_nodata",
     {"www.example.com.", type::MX},
     Rcode::noerror,
     true,
     "www.example.com. CNAME",
     kSoa,
     ""},
    {"cname_queried",
     {"www.example.com.", type::CNAME},
     Rcode::noerror,
     true,
     "www.example.com. CNAME",
     kNs,
     kNsGlue},
    {"nodata", {"mail.example.com.", type::AAAA}, Rcode::noerror, true, "", kSoa, ""},
    {"nxdomain", {"nope.example.com.", type::A}, Rcode::nxdomain, true, "", kSoa, ""},
    {"empty_non_terminal", {"ent.example.com.", type::A}, Rcode::noerror, true, "", kSoa, ""},
    {"below_empty_non_terminal",
     {"x.b.ent.example.com.", type::A},
     Rcode::nxdomain,
     true,
     "",
     kSoa,
     ""},
    {"wildcard",
     {"foo.wild.example.com.", type::A},
     Rcode::noerror,
     true,
     "foo.wild.example.com. A",
     kNs,
     kNsGlue},
    {"wildcard_deep",
     {"a.b.wild.example.com.", type::TXT},
     Rcode::noerror,
     true,
     "a.b.wild.example.com. TXT",
     kNs,
     kNsGlue},
    {"wildcard_nodata", {"foo.wild.example.com.", type::MX}, Rcode::noerror, true, "", kSoa, ""},
    {"wildcard_itself",
     {"*.wild.example.com.", type::A},
     Rcode::noerror,
     true,
     "*.wild.example.com. A",
     kNs,
     kNsGlue},
    {"wildcard_cname",
     {"x.cwild.example.com.", type::A},
     Rcode::noerror,
     true,
     "web.example.com. A; www.example.com. CNAME; x.cwild.example.com. CNAME",
     kNs,
     kNsGlue},
    {"wildcard_not_across_existing",
     {"x.ent.example.com.", type::A},
     Rcode::nxdomain,
     true,
     "",
     kSoa,
     ""},
    {"mx_additional",
     {"example.com.", type::MX},
     Rcode::noerror,
     true,
     "example.com. MX; example.com. MX",
     kNs,
     "mail.example.com. A; ns1.example.com. A; ns1.example.com. AAAA"},
    {"srv_additional",
     {"_sip._tcp.example.com.", type::SRV},
     Rcode::noerror,
     true,
     "_sip._tcp.example.com. SRV",
     kNs,
     "ns1.example.com. A; ns1.example.com. AAAA; sip.example.com. A"},
    // Targets with no node of their own, covered by *.wild: the address is
    // the wildcard's, owned by the target name (as NSD does).
    {"mx_additional_wildcard",
     {"wmx.example.com.", type::MX},
     Rcode::noerror,
     true,
     "wmx.example.com. MX",
     kNs,
     "host.wild.example.com. A; ns1.example.com. A; ns1.example.com. AAAA"},
    {"srv_additional_wildcard",
     {"_x._tcp.example.com.", type::SRV},
     Rcode::noerror,
     true,
     "_x._tcp.example.com. SRV",
     kNs,
     "h2.wild.example.com. A; ns1.example.com. A; ns1.example.com. AAAA"},
    {"apex_ns", {"example.com.", type::NS}, Rcode::noerror, true, kNs, "", kNsGlue},
    {"any_minimal_apex",
     {"example.com.", type::ANY},
     Rcode::noerror,
     true,
     "example.com. SOA",
     "",
     ""},
    {"any_minimal",
     {"web.example.com.", type::ANY},
     Rcode::noerror,
     true,
     "web.example.com. A",
     "",
     ""},
    {"referral",
     {"www.sub.example.com.", type::A},
     Rcode::noerror,
     false,
     "",
     "sub.example.com. NS; sub.example.com. NS",
     "ns.sub.example.com. A; ns1.example.com. A; ns1.example.com. AAAA"},
    {"referral_at_cut",
     {"sub.example.com.", type::NS},
     Rcode::noerror,
     false,
     "",
     "sub.example.com. NS; sub.example.com. NS",
     "ns.sub.example.com. A; ns1.example.com. A; ns1.example.com. AAAA"},
    {"glue_is_not_answered",
     {"ns.sub.example.com.", type::A},
     Rcode::noerror,
     false,
     "",
     "sub.example.com. NS; sub.example.com. NS",
     "ns.sub.example.com. A; ns1.example.com. A; ns1.example.com. AAAA"},
    {"ds_at_cut_from_parent",
     {"sub.example.com.", type::DS},
     Rcode::noerror,
     true,
     "sub.example.com. DS",
     "",
     ""},
    {"ds_at_child_apex_from_parent",
     {"child.example.com.", type::DS},
     Rcode::noerror,
     true,
     "child.example.com. DS",
     "",
     ""},
    {"ds_no_parent_nodata",
     {"example.net.", type::DS},
     Rcode::noerror,
     true,
     "",
     "example.net. SOA",
     ""},
    {"child_zone_answers_itself",
     {"www.child.example.com.", type::A},
     Rcode::noerror,
     true,
     "www.child.example.com. A",
     "child.example.com. NS",
     "ns1.child.example.com. A"},
    {"dname",
     {"x.dn.example.com.", type::A},
     Rcode::noerror,
     true,
     "dn.example.com. DNAME; x.dn.example.com. CNAME; x.example.net. A",
     "example.net. NS",
     ""},
    {"dname_owner_itself", {"dn.example.com.", type::A}, Rcode::noerror, true, "", kSoa, ""},
    {"dname_to_nxdomain",
     {"nothere.dn.example.com.", type::A},
     Rcode::nxdomain,
     true,
     "dn.example.com. DNAME; nothere.dn.example.com. CNAME",
     "example.net. SOA",
     ""},
    {"refused_outside", {"www.example.org.", type::A}, Rcode::refused, false, "", "", ""},
    {"badvers",
     {"www.example.com.", type::A, true, false, 1232, 1},
     Rcode::badvers,
     false,
     "",
     "",
     ""},
    {"no_edns",
     {"web.example.com.", type::A, false},
     Rcode::noerror,
     true,
     "web.example.com. A",
     kNs,
     kNsGlue},

    // DNSSEC, NSEC zone.
    {"nsec_positive",
     {"web.signed.example.", type::A, true, true},
     Rcode::noerror,
     true,
     "web.signed.example. A; web.signed.example. RRSIG/A",
     "signed.example. NS; signed.example. RRSIG/NS",
     "ns1.signed.example. A; ns1.signed.example. RRSIG/A"},
    {"nsec_positive_without_do",
     {"web.signed.example.", type::A},
     Rcode::noerror,
     true,
     "web.signed.example. A",
     "signed.example. NS",
     "ns1.signed.example. A"},
    {"nsec_dnskey",
     {"signed.example.", type::DNSKEY, true, true},
     Rcode::noerror,
     true,
     "signed.example. DNSKEY; signed.example. DNSKEY; signed.example. RRSIG/DNSKEY",
     "",
     ""},
    {"nsec_nxdomain",
     {"nope.signed.example.", type::A, true, true},
     Rcode::nxdomain,
     true,
     "",
     "mail.signed.example. NSEC; mail.signed.example. RRSIG/NSEC; signed.example. NSEC; "
     "signed.example. RRSIG/NSEC; signed.example. RRSIG/SOA; signed.example. SOA",
     ""},
    {"nsec_nodata",
     {"web.signed.example.", type::AAAA, true, true},
     Rcode::noerror,
     true,
     "",
     "signed.example. RRSIG/SOA; signed.example. SOA; web.signed.example. NSEC; "
     "web.signed.example. RRSIG/NSEC",
     ""},
    {"nsec_ent_nodata",
     {"ent.signed.example.", type::A, true, true},
     Rcode::noerror,
     true,
     "",
     // ent sorts right after the apex, whose NSEC (-> a.b.ent) covers it.
     "signed.example. NSEC; signed.example. RRSIG/NSEC; signed.example. RRSIG/SOA; "
     "signed.example. SOA",
     ""},
    {"nsec_wildcard",
     {"x.wild.signed.example.", type::A, true, true},
     Rcode::noerror,
     true,
     "x.wild.signed.example. A; x.wild.signed.example. RRSIG/A",
     "*.wild.signed.example. NSEC; *.wild.signed.example. RRSIG/NSEC; signed.example. NS; "
     "signed.example. RRSIG/NS",
     "ns1.signed.example. A; ns1.signed.example. RRSIG/A"},
    {"nsec_wildcard_nodata",
     {"x.wild.signed.example.", type::MX, true, true},
     Rcode::noerror,
     true,
     "",
     "*.wild.signed.example. NSEC; *.wild.signed.example. RRSIG/NSEC; "
     "signed.example. RRSIG/SOA; signed.example. SOA",
     ""},
    {"nsec_insecure_referral",
     {"www.insecure.signed.example.", type::A, true, true},
     Rcode::noerror,
     false,
     "",
     "insecure.signed.example. NS; insecure.signed.example. NSEC; "
     "insecure.signed.example. RRSIG/NSEC",
     "ns.insecure.signed.example. A"},
    {"nsec_secure_referral",
     {"www.secure.signed.example.", type::A, true, true},
     Rcode::noerror,
     false,
     "",
     "secure.signed.example. DS; secure.signed.example. NS; secure.signed.example. RRSIG/DS",
     "ns.secure.signed.example. A"},

    // DNSSEC, NSEC3 zone (hashes differ per name; counted by owner count).
    {"nsec3_positive",
     {"web.nsec3.example.", type::A, true, true},
     Rcode::noerror,
     true,
     "web.nsec3.example. A; web.nsec3.example. RRSIG/A",
     "nsec3.example. NS; nsec3.example. RRSIG/NS",
     "ns1.nsec3.example. A; ns1.nsec3.example. RRSIG/A"},
};

TEST(Responder, NamedCases) {
  auto db = test_db();
  Responder r;
  std::set<std::string> seen;
  for (const Case& c : kCases) {
    ASSERT_TRUE(seen.insert(c.name).second) << "duplicate case " << c.name;
    Message m = ask(r, *db, c.q);
    SCOPED_TRACE(c.name);
    EXPECT_EQ(m.rcode(), static_cast<std::uint16_t>(c.rcode));
    EXPECT_TRUE(m.header.qr);
    EXPECT_EQ(m.header.aa, c.aa);
    EXPECT_FALSE(m.header.tc);
    EXPECT_TRUE(m.header.rd);  // copied
    EXPECT_EQ(m.header.id, 0x1234);
    ASSERT_EQ(m.questions.size(), 1u);
    EXPECT_EQ(m.questions[0].qname.to_text(), name(c.q.qname).to_text());  // case kept
    EXPECT_EQ(section(m.answers), c.answer);
    EXPECT_EQ(section(m.authority), c.authority);
    EXPECT_EQ(section(m.additional), c.additional);
    EXPECT_EQ(m.edns.has_value(), c.q.edns);
    if (m.edns) {
      const Edns& e = *m.edns;
      EXPECT_EQ(e.dnssec_ok, c.q.dnssec_ok);
      EXPECT_EQ(e.version, 0);
      EXPECT_EQ(e.udp_size, 1232);
    }
  }
}

// Counts the NSEC3 records (each with its RRSIG) a denial carries.
std::size_t count(const std::vector<Record>& rs, RRType t) {
  return static_cast<std::size_t>(
      std::count_if(rs.begin(), rs.end(), [&](const Record& r) { return r.type == t; }));
}

TEST(Responder, Nsec3Proofs) {
  auto db = test_db();
  Responder r;
  struct N3 {
    const char* name;
    Query q;
    Rcode rcode;
    std::size_t nsec3;  // distinct NSEC3 records in authority
  };
  const N3 cases[] = {
      // RFC 5155 §7.2.2: closest encloser match, next closer cover,
      // wildcard cover (two may coincide, and are sent once).
      {"nxdomain", {"nope.nsec3.example.", type::A, true, true}, Rcode::nxdomain, 3},
      // §7.2.3: the NSEC3 matching QNAME.
      {"nodata", {"web.nsec3.example.", type::AAAA, true, true}, Rcode::noerror, 1},
      {"ent_nodata", {"b.ent.nsec3.example.", type::A, true, true}, Rcode::noerror, 1},
      // §7.2.6: the next closer name's cover.
      {"wildcard", {"x.wild.nsec3.example.", type::A, true, true}, Rcode::noerror, 1},
      // §7.2.5: encloser match, next closer cover, wildcard match.
      {"wildcard_nodata", {"x.wild.nsec3.example.", type::MX, true, true}, Rcode::noerror, 3},
      // §7.2.7: the NSEC3 matching the cut.
      {"insecure_referral",
       {"www.insecure.nsec3.example.", type::A, true, true},
       Rcode::noerror,
       1},
      {"secure_referral", {"www.secure.nsec3.example.", type::A, true, true}, Rcode::noerror, 0},
      {"nxdomain_without_do", {"nope.nsec3.example.", type::A, true, false}, Rcode::nxdomain, 0},
  };
  for (const N3& c : cases) {
    SCOPED_TRACE(c.name);
    Message m = ask(r, *db, c.q);
    EXPECT_EQ(m.rcode(), static_cast<std::uint16_t>(c.rcode));
    std::size_t n3 = count(m.authority, type::NSEC3);
    if (std::string(c.name) == "nxdomain") {
      EXPECT_GE(n3, 2u);
      EXPECT_LE(n3, 3u);
    } else {
      EXPECT_EQ(n3, c.nsec3);
    }
    // Every NSEC3 travels with its signature when DO is set.
    std::size_t sigs = 0;
    for (const Record& rr : m.authority) {
      if (rr.type == type::RRSIG && rr.rdata[0] == 0 && rr.rdata[1] == type::NSEC3.value) ++sigs;
    }
    EXPECT_EQ(sigs, c.q.dnssec_ok ? n3 : 0u);
  }
}

TEST(Responder, TruncationOverUdpAndFullAnswerOverTcp) {
  auto db = test_db();
  Responder r;
  // Six 100-octet TXT strings do not fit 512 octets.
  Message udp = ask(r, *db, {"big.example.com.", type::TXT, false});
  EXPECT_TRUE(udp.header.tc);
  EXPECT_TRUE(udp.answers.empty());  // the RRset is dropped whole
  Message edns_small = ask(r, *db, {"big.example.com.", type::TXT, true, false, 512});
  EXPECT_TRUE(edns_small.header.tc);
  EXPECT_TRUE(edns_small.edns.has_value());  // OPT kept in a truncated answer
  Message edns = ask(r, *db, {"big.example.com.", type::TXT, true, false, 4096});
  EXPECT_FALSE(edns.header.tc);
  EXPECT_EQ(edns.answers.size(), 6u);
  Message tcp = ask(r, *db, {"big.example.com.", type::TXT, false}, Transport::tcp);
  EXPECT_FALSE(tcp.header.tc);
  EXPECT_EQ(tcp.answers.size(), 6u);
}

// RFC 9471: a referral whose in-domain glue (name servers at or below the
// cut) does not all fit is truncated; sibling glue may be left out without
// TC. fat.example.com has eight in-domain servers (A and AAAA each: 16
// RRsets, more than 512 octets); sib.example.com has one in-domain server
// and eight below fat.
TEST(Responder, ReferralTruncatedWhenInDomainGlueDoesNotFit) {
  auto db = test_db();
  Responder r;
  auto glue_count = [](const Message& m, std::string_view below) {
    std::size_t n = 0;
    for (const Record& rr : m.additional) {
      if (rr.owner.is_subdomain_of(name(std::string(below)))) ++n;
    }
    return n;
  };
  for (const Query& q :
       {Query{"www.fat.example.com.", type::A, false},
        Query{"www.fat.example.com.", type::A, true, false, 512},
        Query{"www.fat.example.com.", type::A, true, true, 512},
        Query{"fat.example.com.", type::NS, false}, Query{"fat.example.com.", type::A, false}}) {
    SCOPED_TRACE(q.qname + " " + type_to_text(q.qtype));
    Message m = ask(r, *db, q);
    EXPECT_TRUE(m.header.tc);
    EXPECT_FALSE(m.header.aa);
    EXPECT_LT(glue_count(m, "fat.example.com."), 16u);
    EXPECT_EQ(m.edns.has_value(), q.edns);  // OPT kept
  }
  // Room for all of it: no TC, every address.
  Message big = ask(r, *db, {"www.fat.example.com.", type::A, true, false, 1232});
  EXPECT_FALSE(big.header.tc);
  EXPECT_EQ(big.authority.size(), 8u);
  EXPECT_EQ(glue_count(big, "fat.example.com."), 16u);
  Message tcp = ask(r, *db, {"www.fat.example.com.", type::A, false}, Transport::tcp);
  EXPECT_FALSE(tcp.header.tc);
  EXPECT_EQ(glue_count(tcp, "fat.example.com."), 16u);

  // Sibling glue does not fit 512 octets: dropped, no TC; the in-domain
  // server's address is there.
  Message sib = ask(r, *db, {"www.sib.example.com.", type::A, false});
  EXPECT_FALSE(sib.header.tc);
  EXPECT_EQ(sib.authority.size(), 9u);
  EXPECT_EQ(glue_count(sib, "sib.example.com."), 1u);
  EXPECT_LT(glue_count(sib, "fat.example.com."), 16u);
  Message sib_big = ask(r, *db, {"www.sib.example.com.", type::A, true, false, 1232});
  EXPECT_FALSE(sib_big.header.tc);
  EXPECT_EQ(sib_big.additional.size(), 17u);
}

TEST(Responder, PayloadClampedToTheConfiguredMaximum) {
  auto db = test_db();
  ResponderOptions opt;
  opt.max_udp_payload = 600;
  Responder r(opt);
  std::vector<std::uint8_t> out;
  // The client offers 4096; we answer within 600 and advertise 600.
  Outcome o = r.respond(*db, test::query_wire({"big.example.com.", type::TXT, true, false, 4096}),
                        Transport::udp, out);
  EXPECT_TRUE(o.truncated);
  EXPECT_LE(out.size(), 600u);
  auto m = decode(out);
  ASSERT_TRUE(m && m->edns);
  EXPECT_EQ(m->edns.value().udp_size, 600);
}

TEST(Responder, MalformedQueriesPerDisposition) {
  auto db = test_db();
  Responder r;
  std::vector<std::uint8_t> out;
  // Shorter than a header: dropped.
  EXPECT_TRUE(r.respond(*db, std::vector<std::uint8_t>{1, 2, 3}, Transport::udp, out).drop);
  // A response (QR set): dropped, never answered (loops).
  auto q = test::query_wire({"web.example.com.", type::A});
  q[2] |= 0x80;
  EXPECT_TRUE(r.respond(*db, q, Transport::udp, out).drop);
  // Trailing garbage: FORMERR, header only, ID and RD kept.
  q = test::query_wire({"web.example.com.", type::A});
  q.push_back(0);
  Outcome o = r.respond(*db, q, Transport::udp, out);
  ASSERT_FALSE(o.drop);
  EXPECT_EQ(o.rcode, static_cast<std::uint16_t>(Rcode::formerr));
  Message m = decode(out).value();
  EXPECT_EQ(m.header.id, 0x1234);
  EXPECT_TRUE(m.header.qr);
  EXPECT_TRUE(m.header.rd);
  EXPECT_EQ(m.header.rcode, 1);
  EXPECT_TRUE(m.questions.empty());
  // An unimplemented opcode (UPDATE): NOTIMP.
  q = test::query_wire({"web.example.com.", type::A});
  q[2] = static_cast<std::uint8_t>((q[2] & 0x87) | (5 << 3));
  o = r.respond(*db, q, Transport::udp, out);
  EXPECT_EQ(o.rcode, static_cast<std::uint16_t>(Rcode::notimp));
  EXPECT_EQ(decode(out).value().header.opcode, 5);
}

TEST(Responder, RefusalsCarryExtendedErrors) {
  auto db = test_db();
  Responder r;
  Message m = ask(r, *db, {"www.example.org.", type::A});
  ASSERT_TRUE(m.edns && m.edns->extended_error());
  EXPECT_EQ(m.edns->extended_error()->info_code, ede::kNotAuthoritative);
  m = ask(r, *db, {"example.com.", type::AXFR});
  EXPECT_EQ(m.rcode(), static_cast<std::uint16_t>(Rcode::refused));
  ASSERT_TRUE(m.edns && m.edns->extended_error());
  EXPECT_EQ(m.edns->extended_error()->info_code, ede::kProhibited);
}

TEST(Responder, NsidWhenAskedAndConfigured) {
  auto db = test_db();
  ResponderOptions opt;
  opt.nsid = {'n', '1'};
  Responder r(opt);
  Message q;
  q.header.id = 7;
  q.questions.push_back({name("web.example.com."), type::A, rrclass::IN});
  q.edns.emplace();
  q.edns->options.push_back({option::NSID, {}});
  std::vector<std::uint8_t> out;
  (void)r.respond(*db, encode(q).value(), Transport::udp, out);
  Message m = decode(out).value();
  ASSERT_TRUE(m.edns && m.edns->nsid());
  EXPECT_EQ(std::vector<std::uint8_t>(m.edns->nsid()->begin(), m.edns->nsid()->end()), opt.nsid);
  // Not asked: not sent.
  Message plain = ask(r, *db, {"web.example.com.", type::A});
  EXPECT_FALSE(plain.edns->nsid().has_value());
}

TEST(Responder, CaseOfTheQuestionIsEchoedAndAnswersPointToIt) {
  auto db = test_db();
  Responder r;
  std::vector<std::uint8_t> out;
  (void)r.respond(*db, test::query_wire({"wEb.ExAmPlE.cOm.", type::A}), Transport::udp, out);
  Message m = decode(out).value();
  EXPECT_EQ(m.questions[0].qname.to_text(), "wEb.ExAmPlE.cOm.");
  // The answer's owner is a pointer to the question (0xC00C).
  EXPECT_EQ(out[12 + 17 + 4], 0xC0);
  EXPECT_EQ(out[12 + 17 + 5], 0x0C);
}

}  // namespace
}  // namespace herald::dns
