#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dns/decoder.hpp"
#include "dns/encoder.hpp"
#include "dns/error.hpp"
#include "dns/presentation.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using test::hex;
using test::name;
using test::rr;
using test::unhex;

constexpr const char* kQueryHeader = "1234 0100 0001 0000 0000 0000";
constexpr const char* kQuestion = "076578616d706c6503636f6d00 0001 0001";  // example.com A IN

TEST(Header, FlagsRoundTrip) {
  for (std::uint32_t f = 0; f < 0x10000; f += 7) {
    Header h;
    h.set_flags(static_cast<std::uint16_t>(f));
    EXPECT_EQ(h.flags(), f);
  }
  Header h;
  h.set_flags(0x8590);
  EXPECT_TRUE(h.qr && h.aa && h.rd && h.ra && h.cd);
  EXPECT_FALSE(h.tc || h.ad || h.z);
  EXPECT_EQ(h.opcode, 0);
}

TEST(Decode, PlainQuery) {
  auto wire = unhex(std::string(kQueryHeader) + kQuestion);
  auto m = decode_query(wire);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->header.id, 0x1234);
  EXPECT_TRUE(m->header.rd);
  ASSERT_EQ(m->questions.size(), 1u);
  EXPECT_EQ(m->questions[0].qname.to_text(), "example.com.");
  EXPECT_EQ(m->questions[0].qtype, type::A);
  EXPECT_FALSE(m->edns);
}

TEST(Decode, EdnsWithOptions) {
  // OPT: udp 4096, ext rcode 1, version 0, DO; NSID empty, COOKIE 8,
  // ECS 192.0.2.0/24 scope 0, EDE 18 "x", an unknown option 65001.
  std::string opt =
      "00 0029 1000 01008000 0027"
      "0003 0000"
      "000a 0008 0102030405060708"
      "0008 0007 0001 18 00 c00002"
      "000f 0003 0012 78"
      "fde9 0001 ff";
  auto wire = unhex("1234 0100 0001 0000 0000 0001" + std::string(kQuestion) + opt);
  auto m = decode_query(wire);
  ASSERT_TRUE(m) << m.error().to_string();
  ASSERT_TRUE(m->edns);
  const Edns& e = *m->edns;
  EXPECT_EQ(e.udp_size, 4096);
  EXPECT_TRUE(e.dnssec_ok);
  EXPECT_EQ(m->rcode(), 16);  // extended RCODE 1 << 4: BADVERS
  ASSERT_EQ(e.options.size(), 5u);
  EXPECT_TRUE(e.nsid() && e.nsid()->empty());
  ASSERT_TRUE(e.cookie());
  EXPECT_EQ(e.cookie()->first.size(), 8u);
  EXPECT_TRUE(e.cookie()->second.empty());
  auto ecs = e.client_subnet();
  ASSERT_TRUE(ecs);
  EXPECT_EQ(ecs->source_prefix, 24);
  EXPECT_EQ(ecs->address, (std::vector<std::uint8_t>{192, 0, 2}));
  auto ede = e.extended_error();
  ASSERT_TRUE(ede);
  EXPECT_EQ(ede->info_code, 18);
  EXPECT_EQ(ede->text, "x");
  EXPECT_EQ(e.options[4].code.value, 65001);
  // Byte-identical re-encoding (no names to compress differently).
  auto again = encode(m.value());
  ASSERT_TRUE(again);
  EXPECT_EQ(hex(again.value()), hex(wire));
}

struct Refusal {
  const char* name;
  std::string hex;
  bool query;  // decode_query (true) or decode
  Errc code;
  Disposition disposition;
};

std::string q(const char* header) {
  return std::string(header) + kQuestion;
}

TEST(Decode, RefusalsSayWhyAndClassify) {
  const std::string opt = "00 0029 1000 00000000 0000";
  const std::string a_rr = "c00c 0001 0001 00000e10 0004 c0000201";
  // TSIG: key name k., hmac-sha256., time, fudge, empty MAC, id, error, other.
  const std::string tsig =
      "016b00 00fa 00ff 00000000 001d"
      "0b686d61632d73686132353600 000065536000 012c 0000 1234 0000 0000";
  const Refusal cases[] = {
      {"short_header", "1234 0100 0001", true, Errc::short_header, Disposition::drop},
      {"qr_in_query", q("1234 8100 0001 0000 0000 0000"), true, Errc::qr_in_query,
       Disposition::drop},
      {"opcode_status", q("1234 1100 0001 0000 0000 0000"), true, Errc::bad_opcode,
       Disposition::notimp},
      {"opcode_update", q("1234 2900 0001 0000 0000 0000"), true, Errc::bad_opcode,
       Disposition::notimp},
      {"tc_in_query", q("1234 0300 0001 0000 0000 0000"), true, Errc::tc_in_query,
       Disposition::formerr},
      {"no_question", "1234 0100 0000 0000 0000 0000", true, Errc::bad_qdcount,
       Disposition::formerr},
      {"two_questions", q("1234 0100 0002 0000 0000 0000") + kQuestion, true, Errc::bad_qdcount,
       Disposition::formerr},
      {"answer_in_query", q("1234 0100 0001 0001 0000 0000") + a_rr, true, Errc::records_in_query,
       Disposition::formerr},
      {"authority_in_query", q("1234 0100 0001 0000 0001 0000") + a_rr, true,
       Errc::records_in_query, Disposition::formerr},
      {"question_truncated", "1234 0100 0001 0000 0000 0000 076578616d70", true, Errc::truncated,
       Disposition::formerr},
      {"qtype_truncated", "1234 0100 0001 0000 0000 0000 00 0001", true, Errc::truncated,
       Disposition::formerr},
      {"count_beyond_data", q("1234 0100 0001 0000 0000 0001"), true, Errc::truncated,
       Disposition::formerr},
      {"trailing_garbage", q(kQueryHeader) + "00", true, Errc::trailing_data, Disposition::formerr},
      {"pointer_forward", "1234 0100 0001 0000 0000 0000 c00c 0001 0001", true,
       Errc::pointer_forward, Disposition::formerr},
      {"pointer_loop", "1234 0100 0001 0000 0000 0000 0161 c00c 0001 0001", true,
       Errc::pointer_loop, Disposition::formerr},
      {"label_type", "1234 0100 0001 0000 0000 0000 4161 00 0001 0001", true, Errc::bad_label_type,
       Disposition::formerr},
      {"two_opts", q("1234 0100 0001 0000 0000 0002") + opt + opt, true, Errc::opt_duplicate,
       Disposition::formerr},
      {"opt_not_root", q("1234 0100 0001 0000 0000 0001") + "c00c 0029 1000 00000000 0000", true,
       Errc::opt_not_root, Disposition::formerr},
      {"opt_in_answer", q("1234 8100 0001 0001 0000 0000") + opt, false, Errc::opt_misplaced,
       Disposition::formerr},
      {"cookie_bad_length",
       q("1234 0100 0001 0000 0000 0001") + "00 0029 1000 00000000 0009 000a 0005 0102030405", true,
       Errc::bad_option, Disposition::formerr},
      {"ecs_bits_past_prefix",
       q("1234 0100 0001 0000 0000 0001") +
           "00 0029 1000 00000000 000b 0008 0007 0001 17 00 c00003",
       true, Errc::bad_option, Disposition::formerr},
      {"ecs_address_too_long",
       q("1234 0100 0001 0000 0000 0001") +
           "00 0029 1000 00000000 000c 0008 0008 0001 10 00 c0000200",
       true, Errc::bad_option, Disposition::formerr},
      {"option_overruns_rdata",
       q("1234 0100 0001 0000 0000 0001") + "00 0029 1000 00000000 0004 000a 0008", true,
       Errc::bad_option, Disposition::formerr},
      {"rdlength_past_end",
       q("1234 8100 0001 0001 0000 0000") + "c00c 0001 0001 00000e10 0005 c0000201", false,
       Errc::truncated, Disposition::formerr},
      {"tsig_in_answer", q("1234 8100 0001 0001 0000 0000") + tsig, false, Errc::tsig_not_last,
       Disposition::formerr},
      {"record_after_tsig", q("1234 8100 0001 0000 0000 0002") + tsig + a_rr, false,
       Errc::tsig_not_last, Disposition::formerr},
      {"opt_after_tsig", q("1234 0100 0001 0000 0000 0002") + tsig + opt, true, Errc::tsig_not_last,
       Disposition::formerr},
      {"rdata_bad_for_type",
       q("1234 8100 0001 0001 0000 0000") + "c00c 0001 0001 00000e10 0003 c00002", false,
       Errc::bad_rdata, Disposition::formerr},
  };
  std::set<std::string> seen;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(seen.insert(c.name).second) << "duplicate case name";
    ASSERT_FALSE(c.hex.empty());
    auto wire = unhex(c.hex);
    auto m = c.query ? decode_query(wire) : decode(wire);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, c.code) << m.error().to_string();
    EXPECT_EQ(disposition(m.error().code), c.disposition);
    EXPECT_LE(m.error().offset, wire.size());
    EXPECT_FALSE(error_message(m.error().code).empty());
  }
}

// A server decodes a query's records only if a query carries that kind: any
// other record is refused on its type, before its RDATA is read. The SVCB
// record here is malformed (mandatory names a key it lacks): refused as a
// record out of place, not as bad RDATA, it was never decoded.
TEST(Decode, AQueryIsRefusedOnARecordsTypeBeforeItsRdata) {
  const std::string a_rr = "c00c 0001 0001 00000e10 0004 c0000201";
  // 1 . mandatory=port (key 3 listed, absent)
  const std::string bad_svcb = "c00c 0040 0001 00000e10 0009 0001 00 0000 0002 0003";
  const std::string soa =
      "c00c 0006 0001 00000e10 0016 00 00 00000001 00000002 00000003 00000004 00000005";
  const std::string ixfr_question = "076578616d706c6503636f6d00 00fb 0001";
  ASSERT_EQ(decode(unhex(q("1234 8100 0001 0000 0000 0001") + bad_svcb)).error().code,
            Errc::bad_rdata);
  struct Case {
    const char* name;
    std::string hex;
    std::optional<Errc> error;
  };
  const Case cases[] = {
      {"svcb_in_additional", q("1234 0100 0001 0000 0000 0001") + bad_svcb, Errc::records_in_query},
      {"a_in_additional", q("1234 0100 0001 0000 0000 0001") + a_rr, Errc::records_in_query},
      {"soa_in_authority_of_a_query", q("1234 0100 0001 0000 0001 0000") + soa,
       Errc::records_in_query},
      {"soa_in_authority_of_ixfr",
       std::string("1234 0100 0001 0000 0001 0000") + ixfr_question + soa, std::nullopt},
      {"svcb_in_authority_of_ixfr",
       std::string("1234 0100 0001 0000 0001 0000") + ixfr_question + bad_svcb,
       Errc::records_in_query},
      {"soa_in_notify_answer", q("1234 2000 0001 0001 0000 0000") + soa, std::nullopt},
      {"svcb_in_notify_answer", q("1234 2000 0001 0001 0000 0000") + bad_svcb,
       Errc::records_in_query},
      {"svcb_in_notify_additional", q("1234 2000 0001 0000 0000 0001") + bad_svcb,
       Errc::records_in_query},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto m = decode_query(unhex(c.hex));
    if (!c.error) {
      EXPECT_TRUE(m) << m.error().to_string();
      continue;
    }
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, *c.error) << m.error().to_string();
    EXPECT_EQ(disposition(m.error().code), Disposition::formerr);
  }
}

TEST(Decode, EveryPrefixOfAValidResponseIsRefused) {
  Message m;
  m.header.id = 7;
  m.header.qr = true;
  m.questions.push_back({name("www.example.com."), type::A, rrclass::IN});
  m.answers.push_back(rr("www.example.com.", "CNAME", "web.example.com."));
  m.answers.push_back(rr("web.example.com.", "A", "192.0.2.1"));
  m.authority.push_back(rr("example.com.", "NS", "ns1.example.com."));
  m.additional.push_back(rr("ns1.example.com.", "AAAA", "2001:db8::53"));
  m.edns.emplace();
  auto wire = encode(m).value();
  for (std::size_t n = 0; n < wire.size(); ++n) {
    std::vector<std::uint8_t> cut(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(decode(cut)) << "prefix " << n;
  }
  EXPECT_TRUE(decode(wire));
}

// Names drawn from a fixed set of labels, each with one fixed spelling, so a
// compression pointer always leads to the same octets (compression keeps the
// case of the first occurrence; see docs/dns.md).
Name random_name(std::mt19937& rng) {
  static const char* labels[] = {"www",
                                 "Mail",
                                 "a",
                                 "b",
                                 "EXAMPLE",
                                 "com",
                                 "net",
                                 "x-y",
                                 "_tcp",
                                 "_sip",
                                 "very-long-label-for-testing",
                                 "Org"};
  std::string s;
  std::size_t n = rng() % 5;
  for (std::size_t i = 0; i < n; ++i) {
    s += labels[rng() % std::size(labels)];
    s += '.';
  }
  if (s.empty()) s = ".";
  return name(s);
}

Record random_record(std::mt19937& rng) {
  const std::pair<const char*, const char*> kinds[] = {
      {"A", "192.0.2.1"},
      {"AAAA", "2001:db8::1"},
      {"NS", "ns1.EXAMPLE.com."},
      {"CNAME", "Mail.EXAMPLE.com."},
      {"MX", "10 a.b.EXAMPLE.com."},
      {"SOA", "a.EXAMPLE.com. www.EXAMPLE.com. 1 2 3 4 5"},
      {"TXT", "\"hello\" \"\""},
      {"SRV", "1 2 3 _sip._tcp.EXAMPLE.com."},
      {"PTR", "www.EXAMPLE.com."},
      {"DS", "60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118"},
      {"RRSIG", "A 8 3 86400 20240201000000 20240101000000 12345 EXAMPLE.com. AQIDBAUGBwg="},
      {"NSEC", "www.EXAMPLE.com. A MX RRSIG NSEC"},
      {"HTTPS", "1 . alpn=h2 port=443"},
      {"TYPE65280", "\\# 2 abcd"},
  };
  const auto& k = kinds[rng() % std::size(kinds)];
  Record r = rr("x.", k.first, k.second, static_cast<std::uint32_t>(rng()));
  r.owner = random_name(rng);
  return r;
}

Message random_message(std::mt19937& rng) {
  Message m;
  m.header.id = static_cast<std::uint16_t>(rng());
  m.header.set_flags(static_cast<std::uint16_t>(rng() & 0xFFF0));
  m.header.opcode = 0;
  std::size_t nq = rng() % 2;
  for (std::size_t i = 0; i < nq; ++i)
    m.questions.push_back(
        {random_name(rng), RRType{static_cast<std::uint16_t>(1 + rng() % 60)}, rrclass::IN});
  for (auto* s : {&m.answers, &m.authority, &m.additional}) {
    std::size_t n = rng() % 6;
    for (std::size_t i = 0; i < n; ++i) s->push_back(random_record(rng));
  }
  if (rng() % 2) {
    m.edns.emplace();
    m.edns->dnssec_ok = rng() % 2;
    m.edns->udp_size = static_cast<std::uint16_t>(512 + rng() % 4000);
    if (rng() % 2) m.edns->options.push_back({option::NSID, {1, 2, 3}});
  }
  m.sync_counts();
  return m;
}

TEST(RoundTrip, DecodeOfEncodeIsIdentity) {
  std::mt19937 rng(20261129);
  Encoder enc;
  std::vector<std::uint8_t> out, plain;
  for (int i = 0; i < 3000; ++i) {
    Message m = random_message(rng);
    ASSERT_TRUE(enc.encode(m, out, {65535, true}));
    ASSERT_TRUE(enc.encode(m, plain, {65535, false}));
    EXPECT_LE(out.size(), plain.size());
    for (const auto* w : {&out, &plain}) {
      auto back = decode(*w);
      ASSERT_TRUE(back) << back.error().to_string() << "\n" << message_to_text(m);
      EXPECT_EQ(back.value(), m) << message_to_text(m) << "\n---\n"
                                 << message_to_text(back.value());
    }
  }
}

TEST(Encode, TsigStaysLastAfterOpt) {
  Message m;
  m.header.qr = true;
  m.questions.push_back({name("example.com."), type::SOA, rrclass::IN});
  m.additional.push_back(rr("ns.example.com.", "A", "192.0.2.1"));
  m.additional.push_back(rr("k.", "TSIG", "hmac-sha256. 1700000000 300 4 AQIDBA== 4321 0 0"));
  m.additional.back().rclass = rrclass::ANY;
  m.edns.emplace();
  auto wire = encode(m).value();
  auto back = decode(wire);
  ASSERT_TRUE(back) << back.error().to_string();
  m.sync_counts();
  EXPECT_EQ(back.value(), m);
  // The last record on the wire is the TSIG (type 250), after OPT: its 33
  // octets of RDATA are preceded by TYPE CLASS TTL RDLENGTH (10 octets).
  std::size_t type_at = wire.size() - 33 - 10;
  EXPECT_EQ(wire[type_at], 0x00);
  EXPECT_EQ(wire[type_at + 1], 0xFA);
}

TEST(Compression, PointsToSuffixCaseInsensitivelyAndKeepsFirstCase) {
  Message m;
  m.header.qr = true;
  m.questions.push_back({name("www.Example.com."), type::A, rrclass::IN});
  m.answers.push_back(rr("WWW.EXAMPLE.COM.", "CNAME", "web.example.COM."));
  auto wire = encode(m).value();
  // Header 12, question name 17 + 4; answer owner is one pointer to 12.
  EXPECT_EQ(hex(std::span(wire).subspan(33, 2)), "c00c");
  // CNAME target: "web" then a pointer to "Example.com" at offset 16.
  EXPECT_EQ(hex(std::span(wire).subspan(43)), "000603776562c010");
  auto back = decode(wire).value();
  EXPECT_EQ(back.answers[0].owner.to_text(), "www.Example.com.");
  EXPECT_EQ(name("web.Example.com."), Name::from_uncompressed(back.answers[0].rdata).value());
}

TEST(Compression, NewTypesAreNeverCompressed) {
  Message m;
  m.questions.push_back({name("example.com."), type::A, rrclass::IN});
  m.answers.push_back(
      rr("example.com.", "RRSIG", "A 8 2 3600 20240201000000 20240101000000 1 example.com. AQID"));
  m.answers.push_back(rr("example.com.", "SRV", "0 0 1 example.com."));
  auto wire = encode(m).value();
  // The signer name and SRV target appear in full (13 octets each).
  std::string h = hex(wire);
  std::string full = "076578616d706c6503636f6d00";
  std::size_t count = 0;
  for (std::size_t p = h.find(full); p != std::string::npos; p = h.find(full, p + 1)) ++count;
  EXPECT_EQ(count, 3u);  // question, RRSIG signer, SRV target
}

TEST(Compression, FiftyOneLetterLabels) {
  std::string long_name;
  for (int i = 0; i < 50; ++i) long_name += "a.";
  Message m;
  m.questions.push_back({name(long_name), type::A, rrclass::IN});
  m.answers.push_back(rr(long_name, "A", "192.0.2.1"));
  m.answers.push_back(rr("b." + long_name, "A", "192.0.2.2"));
  m.answers.push_back(rr("b." + long_name.substr(10), "A", "192.0.2.3"));
  auto wire = encode(m).value();
  // question 101 + 4; then a 2-octet pointer owner, "b"+pointer (4), and
  // "b"+pointer into the middle of the first name (4); each record +14.
  EXPECT_EQ(wire.size(), 12u + 105 + (2 + 14) + (4 + 14) + (4 + 14));
  auto back = decode(wire);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->answers[2].owner.to_text(), "b." + long_name.substr(10));
}

TEST(Compression, FullMapStillEncodesCorrectly) {
  // 400 distinct three-label owners: over 512 suffixes, so the map fills and
  // later names are written without new entries. Output must still decode to
  // the same message, and stay no longer than the uncompressed form.
  Message m;
  m.header.qr = true;
  for (int i = 0; i < 400; ++i) {
    std::string n = "h" + std::to_string(i) + ".z" + std::to_string(i % 97) + ".example.";
    m.answers.push_back(rr(n, "A", "192.0.2.1"));
  }
  m.sync_counts();
  auto packed = encode(m, {65535, true});
  auto plain = encode(m, {65535, false});
  ASSERT_TRUE(packed && plain);
  EXPECT_LT(packed->size(), plain->size());
  auto back = decode(packed.value());
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), m);
}

TEST(Truncation, KeepsQuestionAndOptAndSetsTc) {
  Message m;
  m.header.qr = true;
  m.questions.push_back({name("big.example.com."), type::TXT, rrclass::IN});
  for (int i = 0; i < 40; ++i) {
    m.answers.push_back(rr("big.example.com.", "TXT", "\"" + std::string(40, 'x') + "\""));
  }
  m.additional.push_back(rr("ns.example.com.", "A", "192.0.2.1"));
  m.edns.emplace();
  m.edns->options.push_back({option::NSID, {'n', 's'}});
  Encoder enc;
  std::vector<std::uint8_t> out;
  auto dropped = enc.encode(m, out, {512, true});
  ASSERT_TRUE(dropped);
  EXPECT_GT(dropped.value(), 0u);
  EXPECT_LE(out.size(), 512u);
  auto back = decode(out);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_TRUE(back->header.tc);
  EXPECT_EQ(back->questions, m.questions);
  EXPECT_EQ(back->edns, m.edns);
  EXPECT_EQ(back->answers.size(), 41u - dropped.value());
  EXPECT_TRUE(back->additional.empty());
  // No room even for the question: refused, not silently mangled.
  auto tiny = enc.encode(m, out, {20, true});
  ASSERT_FALSE(tiny);
  EXPECT_EQ(tiny.error().code, Errc::message_too_long);
}

TEST(Truncation, RollbackForgetsCompressionEntriesOfDroppedRecords) {
  // The record that overflows introduces a new name; a later encode into the
  // same Encoder must not point into octets that were rolled back. Every
  // size from the smallest upwards must decode.
  Message m;
  m.header.qr = true;
  m.questions.push_back({name("q.example."), type::A, rrclass::IN});
  for (int i = 0; i < 20; ++i) {
    m.answers.push_back(rr("n" + std::to_string(i) + ".zone" + std::to_string(i % 3) + ".example.",
                           "NS", "ns.zone" + std::to_string(i % 3) + ".example."));
  }
  Encoder enc;
  std::vector<std::uint8_t> out;
  for (std::size_t limit = 27; limit < 700; ++limit) {
    auto r = enc.encode(m, out, {limit, true});
    ASSERT_TRUE(r) << limit;
    ASSERT_LE(out.size(), limit);
    auto back = decode(out);
    ASSERT_TRUE(back) << "limit " << limit << ": " << back.error().to_string();
    EXPECT_EQ(back->header.tc, r.value() > 0);
  }
}

TEST(Errors, EveryCodeHasAMessageAndAClassification) {
  std::set<std::string_view> messages;
  for (int c = 1; c <= static_cast<int>(Errc::bad_text); ++c) {
    auto code = static_cast<Errc>(c);
    EXPECT_FALSE(error_message(code).empty()) << c;
    EXPECT_TRUE(messages.insert(error_message(code)).second) << "duplicate message " << c;
    EXPECT_NE(disposition(code), Disposition::answer) << c;
  }
  EXPECT_EQ(disposition(Errc::ok), Disposition::answer);
  EXPECT_EQ(disposition_name(Disposition::formerr), "FORMERR");
  EXPECT_EQ(disposition_name(Disposition::notimp), "NOTIMP");
  EXPECT_EQ(disposition_name(Disposition::drop), "drop");
  EXPECT_EQ(disposition_name(Disposition::answer), "answer");
  EXPECT_EQ(make_error(Errc::truncated, 7).to_string(),
            "field runs past the end of the data at offset 7");
  EXPECT_EQ(text_error(3, "expected a TTL").to_string(),
            "presentation form does not parse at offset 3: expected a TTL");
}

TEST(Edns, TypedOptionBuildersRoundTrip) {
  Message m;
  m.questions.push_back({name("example.com."), type::A, rrclass::IN});
  m.edns.emplace();
  m.edns->udp_size = 1400;
  m.edns->version = 1;
  m.edns->z = 0x1234;
  m.edns->add_client_subnet({2, 56, 48, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0}});
  m.edns->add_extended_error({18, "prohibited"});
  m.edns->add_padding(7);
  m.set_rcode(16);  // BADVERS: needs the extended bits
  auto wire = encode(m).value();
  auto back = decode(wire);
  ASSERT_TRUE(back) << back.error().to_string();
  m.sync_counts();
  EXPECT_EQ(back.value(), m);
  EXPECT_EQ(back->rcode(), 16);
  const Edns& e = *back->edns;
  EXPECT_EQ(e.client_subnet()->scope_prefix, 48);
  EXPECT_EQ(e.extended_error()->text, "prohibited");
  EXPECT_EQ(e.find(option::PADDING)->data.size(), 7u);
  EXPECT_FALSE(e.nsid());
  EXPECT_FALSE(e.cookie());
  EXPECT_EQ(e.wire_size(), 11u + (4 + 11) + (4 + 12) + (4 + 7));
}

TEST(Presentation, MessageDump) {
  Message m;
  m.header.id = 1;
  m.header.qr = m.header.aa = true;
  m.questions.push_back({name("example.com."), type::MX, rrclass::IN});
  m.answers.push_back(rr("example.com.", "MX", "10 mail.example.com."));
  m.edns.emplace();
  m.edns->dnssec_ok = true;
  EXPECT_EQ(message_to_text(m),
            ";; id 1 opcode 0 rcode 0 flags qr aa\n"
            ";; edns version 0 udp 1232 do\n"
            ";; question\nexample.com.\tIN\tMX\n"
            ";; answer\nexample.com.\t3600\tIN\tMX\t10 mail.example.com.\n"
            ";; authority\n;; additional\n");
}

}  // namespace
}  // namespace herald::dns
