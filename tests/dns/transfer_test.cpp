// Zone transfer from the responder (AXFR, and IXFR answered in full) and
// the address ACL that guards it. Over sockets, kdig and NSD as a secondary
// check the same in tests/dns/server/.
#include "dns/transfer.hpp"

#include <gtest/gtest.h>

#include <boost/asio/ip/address.hpp>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "dns/responder.hpp"
#include "dns/server/acl.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using test::name;

std::shared_ptr<const ZoneDb> db_of(const char* zone) {
  DbLoad load = load_zones({{name(std::string(zone) + "."),
                             std::string(HERALD_DNS_TEST_DATA "/server/") + zone + ".zone"}});
  EXPECT_EQ(load.failed, 0u);
  return load.db;
}

Message query(const char* qname, RRType t) {
  Message q;
  q.header.id = 99;
  q.questions.push_back({name(qname), t, rrclass::IN});
  return q;
}

// Splits TCP frames and decodes each message.
std::vector<Message> unframe(const std::vector<std::uint8_t>& s) {
  std::vector<Message> out;
  std::size_t at = 0;
  while (at + 2 <= s.size()) {
    std::size_t n = static_cast<std::size_t>(s[at] << 8 | s[at + 1]);
    EXPECT_LE(at + 2 + n, s.size());
    auto m = decode(std::span<const std::uint8_t>(s).subspan(at + 2, n));
    EXPECT_TRUE(m) << (m ? "" : m.error().to_string());
    if (m) out.push_back(m.value());
    at += 2 + n;
  }
  EXPECT_EQ(at, s.size());
  return out;
}

std::vector<Record> records_of(const std::vector<Message>& ms) {
  std::vector<Record> all;
  for (const Message& m : ms) all.insert(all.end(), m.answers.begin(), m.answers.end());
  return all;
}

TEST(Transfer, AxfrIsTheWholeZoneBetweenTwoSoas) {
  for (const char* zone : {"example.com", "signed.example", "nsec3.example"}) {
    SCOPED_TRACE(zone);
    auto db = db_of(zone);
    const Zone& z = *db->find_exact(name(std::string(zone) + "."));
    Responder r;
    std::vector<std::uint8_t> out;
    Outcome o = r.respond(*db, encode(query((std::string(zone) + ".").c_str(), type::AXFR)).value(),
                          Transport::tcp, out, true);
    ASSERT_TRUE(o.framed);
    auto msgs = unframe(out);
    ASSERT_FALSE(msgs.empty());
    EXPECT_EQ(msgs[0].questions.size(), 1u);
    for (const Message& m : msgs) {
      EXPECT_EQ(m.header.id, 99);
      EXPECT_TRUE(m.header.qr && m.header.aa);
      EXPECT_EQ(m.rcode(), 0);
    }
    auto recs = records_of(msgs);
    ASSERT_GE(recs.size(), 2u);
    EXPECT_EQ(recs.front().type, type::SOA);
    EXPECT_EQ(recs.back().type, type::SOA);
    EXPECT_EQ(recs.front().rdata, recs.back().rdata);
    // Every record of the zone file once, plus the closing SOA.
    EXPECT_EQ(recs.size(), z.record_count() + 1);
  }
}

TEST(Transfer, SplitsIntoMessagesWithTheQuestionOnlyInTheFirst) {
  auto db = db_of("signed.example");
  const Zone& z = *db->find_exact(name("signed.example."));
  std::vector<std::uint8_t> out;
  std::size_t n = write_transfer(z, query("signed.example.", type::AXFR), out, 1024);
  auto msgs = unframe(out);
  ASSERT_EQ(msgs.size(), n);
  EXPECT_GT(n, 3u);
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    EXPECT_EQ(msgs[i].questions.size(), i == 0 ? 1u : 0u) << i;
    EXPECT_FALSE(msgs[i].answers.empty()) << i;
  }
  for (std::size_t at = 0; at < out.size();) {
    std::size_t len = static_cast<std::size_t>(out[at] << 8 | out[at + 1]);
    EXPECT_LE(len, 1024u);
    at += 2 + len;
  }
  EXPECT_EQ(records_of(msgs).size(), z.record_count() + 1);
}

TEST(Transfer, IxfrGetsTheFullZone) {
  auto db = db_of("example.com");
  Message q = query("example.com.", type::IXFR);
  // RFC 1995 §3: the client's SOA in the authority section.
  q.authority.push_back(
      test::rr("example.com.", "SOA", "ns1.example.com. h.example.com. 1 2 3 4 5"));
  Responder r;
  std::vector<std::uint8_t> out;
  Outcome o = r.respond(*db, encode(q).value(), Transport::tcp, out, true);
  ASSERT_TRUE(o.framed);
  auto recs = records_of(unframe(out));
  EXPECT_EQ(recs.front().type, type::SOA);
  EXPECT_EQ(recs.back().type, type::SOA);
  EXPECT_GT(recs.size(), 20u);
}

TEST(Transfer, RefusedOverUdpWithoutTheAclAndForNonApexNames) {
  auto db = db_of("example.com");
  Responder r;
  std::vector<std::uint8_t> out;
  auto wire = encode(query("example.com.", type::AXFR)).value();
  struct Case {
    const char* name;
    std::vector<std::uint8_t> wire;
    Transport t;
    bool allowed;
    Rcode rcode;
  };
  const Case cases[] = {
      {"udp", wire, Transport::udp, true, Rcode::refused},
      {"not_in_acl", wire, Transport::tcp, false, Rcode::refused},
      {"not_an_apex", encode(query("www.example.com.", type::AXFR)).value(), Transport::tcp, true,
       Rcode::notauth},
      {"not_our_zone", encode(query("example.org.", type::AXFR)).value(), Transport::tcp, true,
       Rcode::notauth},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Outcome o = r.respond(*db, c.wire, c.t, out, c.allowed);
    EXPECT_FALSE(o.framed);
    EXPECT_EQ(o.rcode, static_cast<std::uint16_t>(c.rcode));
    auto m = decode(out);
    ASSERT_TRUE(m);
    EXPECT_TRUE(m->answers.empty());
  }
}

TEST(AddressAcl, AddressesNetworksAndErrors) {
  auto acl = AddressAcl::parse(" 192.0.2.7, 198.51.100.0/24 ,2001:db8::/32, ::1");
  ASSERT_TRUE(acl) << acl.error();
  auto allows = [&](const char* a) { return acl->allows(boost::asio::ip::make_address(a)); };
  EXPECT_TRUE(allows("192.0.2.7"));
  EXPECT_FALSE(allows("192.0.2.8"));
  EXPECT_TRUE(allows("198.51.100.200"));
  EXPECT_FALSE(allows("198.51.101.1"));
  EXPECT_TRUE(allows("2001:db8:1::5"));
  EXPECT_FALSE(allows("2001:db9::5"));
  EXPECT_TRUE(allows("::1"));
  EXPECT_TRUE(allows("::ffff:192.0.2.7"));  // a v4 client on a dual-stack socket
  EXPECT_FALSE(allows("127.0.0.1"));
  auto none = AddressAcl::parse("");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->allows(boost::asio::ip::make_address("127.0.0.1")));
  for (const char* bad : {"10.0.0.0/33", "nonsense", "10.0.0.0/", "2001:db8::/129"}) {
    auto refused = AddressAcl::parse(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().find('\''), std::string::npos) << refused.error();
  }
}

}  // namespace
}  // namespace herald::dns
