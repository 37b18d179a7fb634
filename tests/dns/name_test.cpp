#include "dns/name.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "dns/detail/ascii.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using test::hex;
using test::unhex;

TEST(Name, RootAndSimple) {
  EXPECT_EQ(Name().to_text(), ".");
  EXPECT_TRUE(Name::from_text(".").value().is_root());
  auto n = Name::from_text("www.Example.com.").value();
  EXPECT_EQ(hex(n.wire()), "03777777074578616d706c6503636f6d00");
  EXPECT_EQ(n.label_count(), 3u);
  EXPECT_EQ(n.to_text(), "www.Example.com.");
}

TEST(Name, RelativeNeedsOrigin) {
  auto origin = Name::from_text("example.com.").value();
  EXPECT_EQ(Name::from_text("www", &origin).value().to_text(), "www.example.com.");
  auto r = Name::from_text("www");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::bad_text);
}

TEST(Name, EscapesRoundTrip) {
  // An escaped dot is part of a label, not a separator.
  auto n = Name::from_text("a\\.b.example.").value();
  EXPECT_EQ(n.label_count(), 2u);
  EXPECT_EQ(hex(n.wire()), "03612e62076578616d706c6500");
  EXPECT_EQ(n.to_text(), "a\\.b.example.");
  auto m = Name::from_text("\\000\\255x\\032y\\\\\\@.").value();
  EXPECT_EQ(hex(m.wire()), "0700ff7820795c4000");
  EXPECT_EQ(m.to_text(), "\\000\\255x\\032y\\\\\\@.");
  EXPECT_EQ(Name::from_text(m.to_text()).value(), m);
}

struct BadName {
  const char* name;
  const char* text;
};

TEST(Name, RefusesBadText) {
  const std::string l63(63, 'a'), l64(64, 'a');
  EXPECT_TRUE(Name::from_text(l63 + "."));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"empty", ""},
      {"empty_label", "a..b."},
      {"leading_dot", ".a."},
      {"label_64", l64 + "."},
      {"ddd_over_255", "\\256."},
      {"ddd_short", "\\25"},
      {"dangling_backslash", "a\\"},
      {"name_256", l63 + "." + l63 + "." + l63 + "." + l63 + "."},
  };
  for (const auto& [id, text] : bad) {
    SCOPED_TRACE(id);
    EXPECT_FALSE(Name::from_text(text));
  }
  // 255 octets exactly is allowed: 3 x 63 + 61 = 253 + 2.
  std::string ok = l63 + "." + l63 + "." + l63 + "." + std::string(61, 'a') + ".";
  auto n = Name::from_text(ok);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->wire_size(), 255u);
}

TEST(Name, CaseInsensitiveCompareAndHash) {
  auto a = Name::from_text("WWW.Example.COM.").value();
  auto b = Name::from_text("www.example.com.").value();
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a.iequals(b));
  EXPECT_EQ(a.ihash(), b.ihash());
  EXPECT_EQ(a.lowercased(), b);
  EXPECT_TRUE(a.is_subdomain_of(Name::from_text("COM.").value()));
  EXPECT_FALSE(a.is_subdomain_of(Name::from_text("org.").value()));
  // Non-letters differing by 0x20 are not case variants.
  auto c = Name::from_text("a@.").value();
  auto d = Name::from_text("a`.").value();
  EXPECT_FALSE(c.iequals(d));
}

TEST(Name, CanonicalOrderRfc4034Example) {
  // RFC 4034 §6.1's example list, in canonical order.
  const char* order[] = {"example.",         "a.example.",      "yljkjljk.a.example.",
                         "Z.a.example.",     "zABC.a.EXAMPLE.", "z.example.",
                         "\\001.z.example.", "*.z.example.",    "\\200.z.example."};
  for (std::size_t i = 0; i + 1 < std::size(order); ++i) {
    auto x = Name::from_text(order[i]).value();
    auto y = Name::from_text(order[i + 1]).value();
    EXPECT_LT(x.canonical_compare(y), 0) << order[i] << " < " << order[i + 1];
    EXPECT_GT(y.canonical_compare(x), 0);
  }
}

// The SWAR fold against the plain twin, over every byte value at every
// position of a 17-octet buffer (two words and a tail).
TEST(Ascii, SwarFoldMatchesPlainOnEveryByte) {
  for (int v = 0; v < 256; ++v) {
    for (std::size_t pos = 0; pos < 17; ++pos) {
      std::uint8_t in[17], a[17], b[17];
      for (std::size_t i = 0; i < 17; ++i) in[i] = static_cast<std::uint8_t>('A' + i);
      in[pos] = static_cast<std::uint8_t>(v);
      detail::fold_plain(in, a, 17);
      detail::fold_swar(in, b, 17);
      ASSERT_EQ(std::vector<std::uint8_t>(a, a + 17), std::vector<std::uint8_t>(b, b + 17))
          << "byte " << v << " at " << pos;
    }
  }
}

TEST(Ascii, SwarEqualMatchesPlainRandomly) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 20000; ++iter) {
    std::size_t n = rng() % 40;
    std::vector<std::uint8_t> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = static_cast<std::uint8_t>(rng());
      // Mostly case variants of a, sometimes a different byte.
      b[i] = rng() % 8 == 0 ? static_cast<std::uint8_t>(rng())
                            : static_cast<std::uint8_t>(a[i] ^ (rng() % 2 ? 0x20 : 0));
    }
    ASSERT_EQ(detail::iequal_plain(a.data(), b.data(), n),
              detail::iequal_swar(a.data(), b.data(), n));
    if (detail::iequal_plain(a.data(), b.data(), n)) {
      ASSERT_EQ(detail::ihash(a.data(), n), detail::ihash(b.data(), n));
    }
  }
}

// The word-tail hash against ihash: every length up to 40 at every offset
// in a buffer of random octets, whatever follows the range.
TEST(Ascii, OverreadHashEqualsIhash) {
  std::mt19937 rng(11);
  std::vector<std::uint8_t> buf(64);
  for (int iter = 0; iter < 2000; ++iter) {
    for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
    for (std::size_t n = 0; n <= 40; ++n) {
      std::size_t at = rng() % (buf.size() - n - 8 + 1);
      ASSERT_EQ(detail::ihash_overread(buf.data() + at, n), detail::ihash(buf.data() + at, n))
          << "length " << n;
    }
  }
}

// Decoding names from a message: where the cursor ends, and every refusal.
TEST(NameWire, PointerCursorEndsAfterFirstPointer) {
  // offset 0: 7example 3com 0 ; offset 13: 3www c0 00 ; offset 19: 1x
  auto msg = unhex("076578616d706c6503636f6d00 03777777c000 0178");
  Reader r(msg);
  r.seek(13);
  auto n = Name::from_wire(r);
  ASSERT_TRUE(n) << n.error().to_string();
  EXPECT_EQ(n->to_text(), "www.example.com.");
  EXPECT_EQ(r.position(), 19u);
}

struct WireCase {
  const char* name;
  const char* hex;
  std::size_t start;
  Errc code;
  std::size_t offset;
};

TEST(NameWire, Refusals) {
  const WireCase cases[] = {
      {"empty", "", 0, Errc::truncated, 0},
      {"label_past_end", "056162", 0, Errc::truncated, 0},
      {"no_root", "0161", 0, Errc::truncated, 2},
      {"pointer_to_itself", "c000", 0, Errc::pointer_forward, 0},
      {"pointer_forward", "c002 0161 00", 0, Errc::pointer_forward, 0},
      {"pointer_loop_in_chunk", "0161 c000", 0, Errc::pointer_loop, 2},
      {"pointer_cycle_via_forward_hop", "0161 c004 0162 c000", 4, Errc::pointer_forward, 2},
      {"pointer_half", "0161 c0", 0, Errc::truncated, 2},
      {"label_type_01", "4100", 0, Errc::bad_label_type, 0},
      {"label_type_10", "8100", 0, Errc::bad_label_type, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto msg = unhex(c.hex);
    Reader r(msg);
    r.seek(c.start);
    auto n = Name::from_wire(r);
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().code, c.code) << n.error().to_string();
    EXPECT_EQ(n.error().offset, c.offset);
  }
}

TEST(NameWire, TooLongThroughPointers) {
  // Four 63-octet labels: 256 octets once the root is added.
  std::vector<std::uint8_t> msg;
  for (int i = 0; i < 4; ++i) {
    msg.push_back(63);
    msg.insert(msg.end(), 63, 'a');
  }
  msg.push_back(0);
  Reader r(msg);
  auto n = Name::from_wire(r);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().code, Errc::name_too_long);
}

}  // namespace
}  // namespace herald::dns
