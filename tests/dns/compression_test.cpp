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
#include "test_util.hpp"

namespace herald::dns {
namespace {

std::string random_label(std::mt19937& rng) {
  static const char* pool[] = {"a",       "A",   "b",   "www",   "WWW",   "Www",  "example",
                               "EXAMPLE", "com", "COM", "x\\.y", "\\000", "mail", "_tcp"};
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

TEST(CompressionTwin, RollbackRestoresTheMap) {
  detail::CompressionMap map;
  std::vector<std::uint8_t> out(12, 0);
  Writer w(out);
  map.write_name(w, test::name("a.example.com."));
  std::size_t mark = map.mark();
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
