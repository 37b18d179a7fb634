// Compact denial (RFC 9824) checked three ways:
//   - the type bitmap against hand-computed octets (the NXNAME bitmap
//     pinned as the plan writes it) and against libldns's own encoder,
//     on fixed and on random type sets;
//   - the successors against enumeration: every name of a small name space
//     (short labels near the apex, labels next to the 63-octet limit,
//     names next to the 255-octet limit, including 0x00, 0x40, 0x5B, 0xFF
//     and upper-case octets) sorted by Name::canonical_compare, and for
//     each name the result must be later, with no enumerated name strictly
//     between (for a cut: after its whole subtree, with nothing else
//     before it). The enumeration holds every valid name of its alphabet
//     and depth, so a result that skips a valid name is caught when that
//     name is spelt from the alphabet;
//   - the NSEC RDATA of each case on a small zone, against the zone
//     parser's encoding of the same NSEC in presentation form.
#include "dns/signing/compact_denial.hpp"

#include <gtest/gtest.h>

#include <ldns/ldns.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "dns/zone.hpp"
#include "support/alloc_counter.hpp"

namespace herald::dns::signing {
namespace {

using test::hex;
using test::name;
using test::rr;
using test::unhex;
using Label = std::vector<std::uint8_t>;

Label label(std::size_t n, std::uint8_t octet) {
  return Label(n, octet);
}
Label label(const std::string& s) {
  return Label(s.begin(), s.end());
}
Label operator+(Label a, const Label& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// `labels` (leftmost first) above `suffix`; nullopt if over 255 octets.
std::optional<Name> under(const std::vector<Label>& labels, const Name& suffix) {
  std::vector<std::uint8_t> wire;
  for (const Label& l : labels) {
    wire.push_back(static_cast<std::uint8_t>(l.size()));
    wire.insert(wire.end(), l.begin(), l.end());
  }
  wire.insert(wire.end(), suffix.wire().begin(), suffix.wire().end());
  auto n = Name::from_uncompressed(wire);
  if (!n) return std::nullopt;
  return *n;
}
Name must(const std::vector<Label>& labels, const Name& suffix) {
  auto n = under(labels, suffix);
  EXPECT_TRUE(n.has_value());
  return n.value_or(Name());
}

// A name of exactly `size` wire octets made of 'y' labels (at most 63
// octets each, so size >= 3 unless 1), under the root.
Name filler(std::size_t size) {
  std::vector<Label> labels;
  std::size_t left = size - 1;
  while (left > 0) {
    std::size_t take = std::min<std::size_t>(64, left);
    if (left - take == 1) --take;  // never leave a one-octet remainder
    labels.push_back(label(take - 1, 'y'));
    left -= take;
  }
  Name n = must(labels, Name());
  EXPECT_EQ(n.wire_size(), size);
  return n;
}

bool less(const Name& a, const Name& b) {
  return a.canonical_compare(b) < 0;
}

// Every valid name at or below `apex` of at most `depth` labels from
// `alphabet`, sorted canonically.
std::vector<Name> enumerate(const Name& apex, const std::vector<Label>& alphabet,
                            std::size_t depth) {
  std::vector<Name> all{apex};
  std::vector<Name> level{apex};
  for (std::size_t d = 0; d < depth; ++d) {
    std::vector<Name> next;
    for (const Name& parent : level) {
      for (const Label& l : alphabet) {
        if (auto n = under({l}, parent)) next.push_back(*n);
      }
    }
    all.insert(all.end(), next.begin(), next.end());
    level = std::move(next);
  }
  std::sort(all.begin(), all.end(), less);
  return all;
}

bool lower(const Name& n) {
  return n == n.lowercased();
}

std::string show(const Name& n) {
  return n.to_text() + " (" + std::to_string(n.wire_size()) + " octets)";
}

// For each lower-case name n of `names`: successor(n) is later than n and
// no name of `names` lies strictly between; or it is the apex and no name
// of `names` is later than n. Returns how many names were checked.
std::size_t check_successors(const std::vector<Name>& names, const Name& apex) {
  std::size_t checked = 0;
  for (const Name& n : names) {
    if (!lower(n)) continue;
    ++checked;
    Name s = successor(n, apex);
    SCOPED_TRACE("owner " + show(n) + ", successor " + show(s));
    EXPECT_TRUE(lower(s));
    EXPECT_TRUE(s.is_subdomain_of(apex));
    if (s == apex) {
      for (const Name& m : names) EXPECT_FALSE(less(n, m)) << show(m) << " is later";
      continue;
    }
    EXPECT_TRUE(less(n, s));
    for (const Name& m : names) {
      EXPECT_FALSE(less(n, m) && less(m, s)) << show(m) << " lies between";
    }
  }
  return checked;
}

// For each lower-case name c of `names` below the apex:
// delegation_successor(c) is later than c and not below it, every
// descendant of c is before it, and no other name lies between c and it;
// or it is the apex and every name later than c is c's descendant.
std::size_t check_delegation_successors(const std::vector<Name>& names, const Name& apex) {
  std::size_t checked = 0;
  for (const Name& c : names) {
    if (!lower(c) || c == apex) continue;
    ++checked;
    Name s = delegation_successor(c, apex);
    SCOPED_TRACE("cut " + show(c) + ", successor " + show(s));
    EXPECT_TRUE(lower(s));
    EXPECT_TRUE(s.is_subdomain_of(apex));
    bool end = s == apex;
    if (!end) {
      EXPECT_TRUE(less(c, s));
      EXPECT_FALSE(s.is_subdomain_of(c));
    }
    for (const Name& m : names) {
      if (m.is_subdomain_of(c)) {
        if (!end) {
          EXPECT_TRUE(less(m, s)) << "descendant " << show(m) << " is not before";
        }
      } else if (less(c, m)) {
        EXPECT_FALSE(end || less(m, s)) << show(m) << " lies between";
      }
    }
  }
  return checked;
}

// The alphabet for the enumerations: the 0x00 label and its neighbours,
// 0x40 '@' and 0x5B '[' around the folded 'A' (given in upper case: it
// is never an input, but sorts as 'a' in the neighbourhood), 0xFF.
std::vector<Label> short_alphabet() {
  return {label(1, 0),
          label("a"),
          label("a") + label(1, 0),
          label("A"),
          label("b"),
          label("@"),
          label("["),
          label(1, 0xFF),
          label(2, 0xFF),
          label("a") + label(1, 0xFF)};
}

TEST(CompactDenial, TheNxnameBitmapIsTheOctetsThePlanPins) {
  std::vector<std::uint8_t> out{0xAA};
  const std::uint16_t types[] = {type::RRSIG.value, type::NSEC.value, type::NXNAME.value};
  append_type_bitmap(types, out);
  EXPECT_EQ(hex(out), hex(unhex("aa 00 11 00 00 00 00 00 03 00 00 00 00 00 00 00 00 00 00 80")));
  EXPECT_EQ(type::NXNAME.value, 128);
}

TEST(CompactDenial, ABitmapSpanningTwoWindowsMatchesHandOctetsAndLdns) {
  // A 1, MX 15, RRSIG 46, NSEC 47 in window 0 (6 octets: 47 is in octet 5);
  // CAA 257 = window 1, bit 1 of octet 0.
  const std::uint16_t types[] = {1, 15, 46, 47, 257};
  std::vector<std::uint8_t> out;
  append_type_bitmap(types, out);
  EXPECT_EQ(hex(out),
            "0006"
            "400100000003"
            "0101"
            "40");

  ldns_rr_type list[] = {LDNS_RR_TYPE_A, LDNS_RR_TYPE_MX, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_NSEC,
                         LDNS_RR_TYPE_CAA};
  ldns_rdf* theirs = ldns_dnssec_create_nsec_bitmap(list, 5, LDNS_RR_TYPE_NSEC);
  ASSERT_NE(theirs, nullptr);
  EXPECT_EQ(hex(out), hex({ldns_rdf_data(theirs), ldns_rdf_size(theirs)}));
  ldns_rdf_deep_free(theirs);

  // The same through ldns's NSEC presentation parser.
  ldns_rr* nsec = nullptr;
  ASSERT_EQ(
      ldns_rr_new_frm_str(&nsec, "a.z. 60 IN NSEC b.z. A MX RRSIG NSEC CAA", 0, nullptr, nullptr),
      LDNS_STATUS_OK);
  const ldns_rdf* bitmap = ldns_rr_rdf(nsec, 1);
  EXPECT_EQ(hex(out), hex({ldns_rdf_data(bitmap), ldns_rdf_size(bitmap)}));
  ldns_rr_free(nsec);
}

TEST(CompactDenial, RandomBitmapsMatchLdns) {
  std::mt19937 rng(9824);
  // Mostly window 0, some windows 1-2 and the last type of all (65535).
  std::uniform_int_distribution<int> pick(1, 700);
  for (int round = 0; round < 500; ++round) {
    std::set<std::uint16_t> set;
    int n = std::uniform_int_distribution<int>(1, 12)(rng);
    for (int i = 0; i < n; ++i) set.insert(static_cast<std::uint16_t>(pick(rng)));
    if (round % 50 == 0) set.insert(65535);
    std::vector<std::uint16_t> types(set.begin(), set.end());
    std::vector<ldns_rr_type> list;
    for (std::uint16_t t : types) list.push_back(static_cast<ldns_rr_type>(t));
    std::vector<std::uint8_t> ours;
    append_type_bitmap(types, ours);
    ldns_rdf* theirs = ldns_dnssec_create_nsec_bitmap(list.data(), list.size(), LDNS_RR_TYPE_NSEC);
    ASSERT_NE(theirs, nullptr);
    EXPECT_EQ(hex(ours), hex({ldns_rdf_data(theirs), ldns_rdf_size(theirs)})) << "round " << round;
    ldns_rdf_deep_free(theirs);
  }
}

TEST(CompactDenial, AnEmptyTypeListAppendsNothing) {
  std::vector<std::uint8_t> out{1, 2};
  append_type_bitmap({}, out);
  EXPECT_EQ(hex(out), "0102");
}

TEST(CompactDenial, TheSuccessorOfAShortNameIsItsZeroLabelChild) {
  EXPECT_EQ(successor(name("www.example."), name("example.")), name("\\000.www.example."));
  EXPECT_EQ(successor(name("example."), name("example.")), name("\\000.example."));
  EXPECT_EQ(successor(name("."), name(".")), name("\\000."));
  // The cut form: the first label grows, the name stays beside the cut.
  EXPECT_EQ(delegation_successor(name("sub.example."), name("example.")),
            name("sub\\000.example."));
}

TEST(CompactDenial, SuccessorsOfShortNamesLeaveNoEnumeratedNameBetween) {
  const Name apex = name("z.");
  const std::vector<Name> names = enumerate(apex, short_alphabet(), 3);
  EXPECT_GT(check_successors(names, apex), 500u);
  EXPECT_GT(check_delegation_successors(names, apex), 500u);
}

TEST(CompactDenial, SuccessorsNextToThe255OctetLimitLeaveNoEnumeratedNameBetween) {
  // Under a 249-octet apex the alphabet's one- and two-octet labels make
  // names of 251 to 255 octets: the append to the first label, the
  // increment, and the walk up from an all-0xFF label all happen here.
  const Name apex = filler(249);
  const std::vector<Name> names = enumerate(apex, short_alphabet(), 3);
  std::size_t long_names = 0;
  for (const Name& n : names) long_names += n.wire_size() >= 254 ? 1 : 0;
  EXPECT_GT(long_names, 100u);
  EXPECT_GT(check_successors(names, apex), 150u);
  EXPECT_GT(check_delegation_successors(names, apex), 150u);
}

TEST(CompactDenial, SuccessorsNextToThe63OctetLabelLimitLeaveNoEnumeratedNameBetween) {
  // 63-octet labels ending in each interesting octet, and their shorter
  // neighbours: the increment (dropping trailing 0xFF octets: the result
  // of 61 'a' and two 0xFF is 60 'a' and 'b', in the alphabet, and keeping
  // the label's length would step over it) and the walk from an all-0xFF
  // label of 63 octets.
  const Label a62 = label(62, 'a');
  const std::vector<Label> alphabet{label("a"),
                                    label(1, 0),
                                    a62 + label("a"),
                                    a62 + label("@"),
                                    a62 + label("A"),
                                    a62 + label("["),
                                    a62 + label(1, 0xFF),
                                    label(61, 'a') + label(2, 0xFF),
                                    label(60, 'a') + label("b"),
                                    label(63, 0xFF),
                                    label(62, 0xFF)};
  // Under "z.", then under a 63-octet apex, where three 63-octet labels
  // make 255 octets and the append to a first label is refused for length.
  for (const Name& apex : {name("z."), filler(63)}) {
    SCOPED_TRACE(apex.to_text());
    const std::vector<Name> names = enumerate(apex, alphabet, 3);
    std::size_t long_names = 0;
    for (const Name& n : names) long_names += n.wire_size() >= 254 ? 1 : 0;
    if (apex.wire_size() > 3) {
      EXPECT_GT(long_names, 200u);
    }
    EXPECT_GT(check_successors(names, apex), 1000u);
    EXPECT_GT(check_delegation_successors(names, apex), 1000u);
  }
}

// The long-name cases one by one, each result spelt out, and checked
// against the neighbours that could wrongly lie between.
struct LongCase {
  const char* what;
  Name owner, apex, expected;
  bool cut;  // delegation_successor rather than successor
  std::vector<Name> neighbours;
};

TEST(CompactDenial, LongNamesHaveTheSuccessorsSpeltOut) {
  const Name z = name("z.");
  const Label a62 = label(62, 'a'), ff63 = label(63, 0xFF);
  const Name p190 = filler(190);  // one 63-octet label above it makes 254
  std::vector<LongCase> cases;
  {
    // 254 octets, first label "a": "a\000" is the next label (255 octets).
    Name p = filler(252);
    cases.push_back(
        {"254 octets, short first label",
         must({label("a")}, p),
         p,
         must({label("a") + label(1, 0)}, p),
         false,
         {must({label("a") + label(1, 0)}, p), must({label("b")}, p), must({label(1, 0)}, p), p}});
  }
  {
    // 255 octets: no octet to spare; "abc" becomes "abd".
    Name p = filler(251);
    cases.push_back({"255 octets, short first label",
                     must({label("abc")}, p),
                     p,
                     must({label("abd")}, p),
                     false,
                     {must({label("abd")}, p), must({label("abe")}, p), must({label("abb")}, p),
                      must({label("ab") + label(1, 0xFF)}, p), must({label("ab")}, p)}});
  }
  {
    // 255 octets, a 63-octet label ending in '@': the next folded value is '['.
    Name p = filler(191);
    cases.push_back({"255 octets, 63-octet label ending in @",
                     must({a62 + label("@")}, p),
                     p,
                     must({a62 + label("[")}, p),
                     false,
                     {must({a62 + label("A")}, p), must({a62 + label("a")}, p),
                      must({a62 + label("[")}, p), must({a62 + label("?")}, p)}});
  }
  {
    // 254 octets, 63-octet label with trailing 0xFF octets: dropped, and
    // the octet before raised ("aa..a\xff\xff" -> "aa..b").
    Label l = label(60, 'a') + label("c") + label(2, 0xFF);
    cases.push_back({"254 octets, 63-octet label ending in 0xFF",
                     must({l}, p190),
                     p190,
                     must({label(60, 'a') + label("d")}, p190),
                     false,
                     {must({label(60, 'a') + label("d")}, p190),
                      must({label(60, 'a') + label("c") + label(1, 0xFF)}, p190),
                      must({label(60, 'a') + label("c") + label(1, 0xFF) + label(1, 0)}, p190),
                      must({label(60, 'a') + label("d") + label(1, 0)}, p190)}});
  }
  {
    // 254 octets, the first label 63 octets of 0xFF: the walk moves to the
    // parent "x", whose label gets the 0x00 ("x\000"); incrementing it
    // ("y", Knot before 3699716a7) would step over "x\000".
    Name apex = filler(188);
    Name expected = must({label("x") + label(1, 0)}, apex);
    cases.push_back({"254 octets, all-0xFF 63-octet label",
                     must({ff63, label("x")}, apex),
                     apex,
                     expected,
                     false,
                     {expected, must({label("y")}, apex), must({label("x") + label(1, 1)}, apex),
                      must({label(1, 0), label("x") + label(1, 0)}, apex),
                      must({label(62, 0xFF), label("x")}, apex), must({label("x")}, apex)}});
  }
  {
    // Two all-0xFF 63-octet labels over a 127-octet apex: the walk reaches
    // the apex, the end of the chain.
    Name apex = filler(127);
    Name owner = must({ff63, ff63}, apex);
    ASSERT_EQ(owner.wire_size(), 255u);
    cases.push_back({"walk to the apex (255 octets)",
                     owner,
                     apex,
                     apex,
                     false,
                     {must({ff63}, apex), must({label(62, 0xFF)}, apex)}});
    Name apex128 = filler(128);
    Name owner254 = must({label(62, 0xFF), ff63}, apex128);
    ASSERT_EQ(owner254.wire_size(), 255u);
    cases.push_back({"walk to the apex (62 octets of 0xFF first)",
                     owner254,
                     apex128,
                     apex128,
                     false,
                     {must({ff63}, apex128)}});
  }
  {
    // Cuts: a 63-octet first label cannot grow, so it is incremented...
    cases.push_back({"cut with a 63-octet label",
                     must({a62 + label("a")}, z),
                     z,
                     must({a62 + label("b")}, z),
                     true,
                     {must({a62 + label("b")}, z), must({a62 + label("a")}, z),
                      must({label(1, 0), a62 + label("a")}, z)}});
    // ... an all-0xFF one moves to its parent, which grows ...
    cases.push_back({"cut with an all-0xFF 63-octet label",
                     must({ff63, label("x")}, z),
                     z,
                     must({label("x") + label(1, 0)}, z),
                     true,
                     {must({label("x") + label(1, 0)}, z), must({label("y")}, z),
                      must({label(1, 0), ff63, label("x")}, z)}});
    // ... and a cut of 255 octets whose first label is short is incremented.
    Name p253 = filler(253);
    cases.push_back({"cut of 255 octets",
                     must({label("m")}, p253),
                     p253,
                     must({label("n")}, p253),
                     true,
                     {must({label("n")}, p253), must({label("l")}, p253)}});
    // A cut directly under the apex whose label is all 0xFF: the chain ends.
    cases.push_back({"all-0xFF cut under the apex",
                     must({ff63}, z),
                     z,
                     z,
                     true,
                     {must({label(1, 0), ff63}, z)}});
  }
  for (const LongCase& c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_TRUE(lower(c.owner));
    Name s = c.cut ? delegation_successor(c.owner, c.apex) : successor(c.owner, c.apex);
    EXPECT_EQ(s.to_text(), c.expected.to_text());
    if (!(s == c.apex)) {
      EXPECT_TRUE(less(c.owner, s)) << show(s);
    }
    for (const Name& m : c.neighbours) {
      bool below = c.cut && m.is_subdomain_of(c.owner);
      if (!below) {
        EXPECT_FALSE(less(c.owner, m) && (s == c.apex || less(m, s))) << show(m) << " lies between";
      }
    }
  }
}

ZoneLoad build(const std::string& text) {
  ZoneOptions opt;
  opt.origin = name("example.");
  return build_zone(opt.origin, parse_zone_text(text, "t.zone", opt));
}

constexpr const char* kZone = R"($TTL 3600
@        SOA   ns hostmaster 1 3600 600 86400 300
@        NS    ns
@        MX    10 www
ns       A     192.0.2.1
www      A     192.0.2.2
www      AAAA  2001:db8::2
www      TXT   "hello"
a.b.ent  TXT   "deep"
sub      NS    ns.sub
sub      TXT   "parent-side, not authoritative"
ns.sub   A     192.0.2.3
sec      NS    ns.other.
sec      DS    12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
old      A     192.0.2.4
old      NSEC  www A NSEC
)";

// The RDATA of "NSEC <text>" as the zone parser encodes it.
std::string nsec(const std::string& text) {
  return hex(rr("x.example.", "NSEC", text).rdata);
}

TEST(CompactDenial, EachDenialOfASmallZoneHasItsNextNameAndBitmap) {
  ZoneLoad z = build(kZone);
  ASSERT_TRUE(z.zone) << (z.errors.empty() ? "" : z.errors[0].to_string());
  const Zone& zone = *z.zone;
  const Name apex = zone.origin();
  auto node = [&](const char* n) -> const Node* {
    std::uint32_t i = zone.find(name(n));
    EXPECT_NE(i, kNoNode) << n;
    return i == kNoNode ? nullptr : &zone.node(i);
  };
  std::vector<std::uint8_t> out{9, 9, 9};
  struct Case {
    const char* what;
    const Node* node;
    const char* owner;
    Denial d;
    std::string expected;
  };
  const Case cases[] = {
      {"nxname", nullptr, "nope.example.", Denial::nxname,
       nsec("\\000.nope.example. RRSIG NSEC TYPE128")},
      {"nxname ignores the node", node("www.example."), "nope.example.", Denial::nxname,
       nsec("\\000.nope.example. RRSIG NSEC TYPE128")},
      {"nodata", node("www.example."), "www.example.", Denial::nodata,
       nsec("\\000.www.example. A TXT AAAA RRSIG NSEC")},
      {"apex", &zone.apex(), "example.", Denial::nodata,
       nsec("\\000.example. NS SOA MX RRSIG NSEC")},
      {"empty non-terminal", node("b.ent.example."), "b.ent.example.", Denial::nodata,
       nsec("\\000.b.ent.example. RRSIG NSEC")},
      {"wildcard-style owner, another node", node("www.example."), "q.example.", Denial::nodata,
       nsec("\\000.q.example. A TXT AAAA RRSIG NSEC")},
      {"a node with an NSEC of its own", node("old.example."), "old.example.", Denial::nodata,
       nsec("\\000.old.example. A RRSIG NSEC")},
      {"cut with NS and DS", node("sec.example."), "sec.example.", Denial::delegation,
       nsec("sec\\000.example. NS DS RRSIG NSEC")},
      {"cut with NS only (and parent-side TXT)", node("sub.example."), "sub.example.",
       Denial::delegation, nsec("sub\\000.example. NS RRSIG NSEC")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    compact_nsec(c.node, name(c.owner), apex, c.d, out);
    EXPECT_EQ(hex(out), c.expected);
  }
  // The nxname RDATA ends in the pinned bitmap.
  compact_nsec(nullptr, name("nope.example."), apex, Denial::nxname, out);
  EXPECT_EQ(hex(out), hex(name("\\000.nope.example.").wire()) +
                          hex(unhex("00 11 00 00 00 00 00 03 00 00 00 00 00 00 00 00 00 00 80")));
}

TEST(CompactDenial, CompactNsecAllocatesNothingOnceItsBufferHasGrown) {
  ZoneLoad z = build(kZone);
  ASSERT_TRUE(z.zone);
  const Zone& zone = *z.zone;
  const Name apex = zone.origin();
  const Node& www = zone.node(zone.find(name("www.example.")));
  const Node& sec = zone.node(zone.find(name("sec.example.")));
  const Name qname = must({label(60, 'q'), label(60, 'q'), label(60, 'q')}, name("www.example."));
  const Name www_name = name("www.example."), sec_name = name("sec.example.");
  std::vector<std::uint8_t> out;
  out.reserve(255 + 2 + 32);
  herald::test::AllocationScope scope;
  for (int i = 0; i < 100; ++i) {
    compact_nsec(nullptr, qname, apex, Denial::nxname, out);
    compact_nsec(&www, www_name, apex, Denial::nodata, out);
    compact_nsec(&sec, sec_name, apex, Denial::delegation, out);
  }
  EXPECT_EQ(scope.count(), 0u);
}

}  // namespace
}  // namespace herald::dns::signing
