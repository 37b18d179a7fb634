// The compression map against its obvious twin: a map from every suffix,
// lowercased and materialised as a string, to its first offset. On random
// names (mixed case, shared suffixes) both must write identical octets.
#include "dns/detail/compression.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "dns/detail/ascii.hpp"
#include "dns/detail/naive_compression.hpp"
#include "dns/rdata.hpp"
#include "dns/zone.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

std::string random_label(std::mt19937& rng) {
  static const char* pool[] = {"a", "A", "b", "www", "WWW", "Www", "example", "EXAMPLE", "com",
                               "COM", "x\\.y", "\\000", "mail", "_tcp",
                               // eight octets and more: the folded compares' word steps
                               "d1z00001", "D1Z00001", "abcdefghijklmnopq", "ABCDEFGHIJKLMNOPQ"};
  return pool[rng() % std::size(pool)];
}

TEST(CompressionTwin, SameOctetsAsNaiveMap) {
  std::mt19937 rng(42);
  for (int round = 0; round < 2000; ++round) {
    std::vector<Name> names;
    std::size_t count = 1 + rng() % 12;
    for (std::size_t i = 0; i < count; ++i) {
      std::string s;
      std::size_t labels = rng() % 6;
      for (std::size_t k = 0; k < labels; ++k) s += random_label(rng) + ".";
      names.push_back(test::name(s.empty() ? "." : s));
    }
    std::vector<std::uint8_t> ours(12, 0), naive(12, 0);
    detail::CompressionMap map;
    detail::NaiveCompressor nc;
    Writer w(ours);
    for (const auto& n : names) {
      map.write_name(w, n);
      nc.write_name(naive, n);
    }
    ASSERT_EQ(test::hex(ours), test::hex(naive)) << "round " << round;
    // And every name reads back (case-insensitively equal: pointers lead to
    // the first spelling).
    Reader r(ours);
    r.seek(12);
    for (const auto& n : names) {
      auto back = Name::from_wire(r);
      ASSERT_TRUE(back) << back.error().to_string();
      EXPECT_TRUE(back->iequals(n));
    }
    EXPECT_EQ(r.remaining(), 0u);
  }
}

// The responder's RDATA writer against rdata_to_wire on every record of the
// test zones (plain, NSEC and NSEC3 signed), written one after another into
// one message with one map each, so that names also compress against each
// other: the same octets.
TEST(CompressionTwin, ValidRdataWriterMatchesRdataToWire) {
  std::size_t records = 0, with_names = 0;
  for (const char* z :
       {"example.com", "example.net", "child.example.com", "signed.example", "nsec3.example"}) {
    std::string path = std::string(HERALD_DNS_TEST_DATA "/server/") + z + ".zone";
    ZoneLoad load = load_zone_file(path, test::name(std::string(z) + "."));
    ASSERT_TRUE(load.zone) << path;
    std::vector<std::uint8_t> plain(12, 0), fast(12, 0);
    Writer wp(plain), wf(fast);
    detail::CompressionMap mp, mf;
    const Zone& zone = *load.zone;
    for (std::size_t i = 0; i < zone.node_count(); ++i) {
      const Node& nd = zone.node(static_cast<std::uint32_t>(i));
      for (const RRset& set : nd.rrsets) {
        for (const Rdata& rd : set.rdatas) {
          mp.write_name(wp, nd.name);
          mf.write_name(wf, nd.name);
          rdata_to_wire(set.type, rd, wp, &mp);
          valid_rdata_to_wire(set.type, rd, wf, mf);
          ++records;
          with_names += set.type == type::NS || set.type == type::MX || set.type == type::SOA ||
                        set.type == type::CNAME;
        }
        for (const Rdata& rd : set.sigs) {
          rdata_to_wire(type::RRSIG, rd, wp, &mp);
          valid_rdata_to_wire(type::RRSIG, rd, wf, mf);
        }
      }
    }
    ASSERT_FALSE(wp.overflow());
    EXPECT_EQ(test::hex(plain), test::hex(fast)) << z;
  }
  EXPECT_GT(records, 100u);
  EXPECT_GT(with_names, 30u);
}

// write_stable_name (found by address when written again) against
// write_name, on random sequences drawn from a few Name objects (the root
// among them), with rollbacks: the same octets.
TEST(CompressionTwin, StableNamesWriteTheSameOctets) {
  std::mt19937 rng(5);
  for (int round = 0; round < 2000; ++round) {
    std::vector<Name> pool{test::name(".")};
    std::size_t count = 1 + rng() % 6;
    for (std::size_t i = 0; i < count; ++i) {
      std::string s;
      std::size_t labels = 1 + rng() % 5;
      for (std::size_t k = 0; k < labels; ++k) s += random_label(rng) + ".";
      pool.push_back(test::name(s));
    }
    std::vector<std::uint8_t> plain(12, 0), stable(12, 0);
    Writer wp(plain), ws(stable);
    detail::CompressionMap mp, ms;
    std::size_t steps = 1 + rng() % 16;
    for (std::size_t k = 0; k < steps; ++k) {
      const Name& n = pool[rng() % pool.size()];
      bool undo = rng() % 5 == 0;
      auto mark_p = mp.mark();
      auto mark_s = ms.mark();
      std::size_t size_p = wp.size(), size_s = ws.size();
      mp.write_name(wp, n);
      ms.write_stable_name(ws, n);
      if (undo) {  // as when a record does not fit
        mp.rollback(mark_p);
        ms.rollback(mark_s);
        wp.truncate(size_p);
        ws.truncate(size_s);
      }
    }
    ASSERT_EQ(test::hex(plain), test::hex(stable)) << "round " << round;
  }
}

TEST(CompressionTwin, RollbackRestoresTheMap) {
  detail::CompressionMap map;
  std::vector<std::uint8_t> out(12, 0);
  Writer w(out);
  map.write_name(w, test::name("a.example.com."));
  auto mark = map.mark();
  std::size_t size = w.size();
  map.write_name(w, test::name("b.other.net."));
  map.rollback(mark);
  w.truncate(size);
  // "other.net." was forgotten: written in full again, not as a pointer
  // into the removed octets; "example.com." is still known.
  map.write_name(w, test::name("other.net."));
  map.write_name(w, test::name("c.example.com."));
  EXPECT_EQ(test::hex(std::span(out).subspan(size)),
            "056f74686572036e657400"
            "0163c00e");
}

}  // namespace
}  // namespace herald::dns
