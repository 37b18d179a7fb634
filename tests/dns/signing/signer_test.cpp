// The online signer's output checked three ways:
//   - RFC 8080 §6.1's Ed25519 example reproduced byte for byte (EdDSA is
//     deterministic): the signed data and the signature, as corrected by
//     RFC erratum 4935;
//   - RFC 6605 §6.1's ECDSA example: our signed data is the octets the
//     RFC's signature covers, so ldns accepts the RFC's signature over it;
//   - every RRset of the online test zone, signed with each committed key
//     (ECDSA CSK, Ed25519 CSK, ECDSA KSK and ZSK), verified by ldns, which
//     builds the canonical form itself (ldns_oracle.hpp). The zone's RDATA
//     names are in mixed case, so a canonical form that folds the wrong
//     names, or not the right ones, fails here.
#include "dns/signing/signer.hpp"

#include <gtest/gtest.h>

#include <openssl/bn.h>
#include <openssl/ec.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "../test_util.hpp"
#include "dns/detail/text_codecs.hpp"
#include "dns/presentation.hpp"
#include "dns/signing/canonical.hpp"
#include "dns/signing/key_file.hpp"
#include "dns/signing/rrsig.hpp"
#include "ldns_oracle.hpp"
#include "online_zone.hpp"

namespace herald::dns::signing {
namespace {

using test::hex;
using test::name;
using test::rr;
using test::TempDir;
using test::unhex;
namespace fs = std::filesystem;

const std::string kData = HERALD_DNS_TEST_DATA;
constexpr std::uint32_t kInception = 1767225600;   // 2026-01-01
constexpr std::uint32_t kExpiration = 2082758400;  // 2036-01-01
constexpr std::time_t kCheckTime = 1796083200;     // 2026-12-01

SigningKey key_from_text(const std::string& zone, const std::string& base,
                         const std::string& private_text, const std::string& key_text,
                         TempDir& dir) {
  std::ofstream(dir.path / (base + ".private")) << private_text;
  std::ofstream(dir.path / (base + ".key")) << key_text;
  auto k = read_key_pair((dir.path / (base + ".private")).string(), name(zone));
  EXPECT_TRUE(k) << k.error().to_string();
  return k ? std::move(*k) : SigningKey{};
}

std::string b64(std::span<const std::uint8_t> s) {
  std::string out;
  detail::base64_encode(s, out);
  return out;
}

Record dnskey_record(const Name& zone, const SigningKey& k) {
  return Record{zone, type::DNSKEY, rrclass::IN, 3600, k.dnskey};
}

TEST(Signer, Rfc8080Ed25519ExampleIsReproducedByteForByte) {
  TempDir dir("herald-sign");
  SigningKey key = key_from_text(
      "example.com.", "Kexample.com.+015+03613",
      "Private-key-format: v1.2\nAlgorithm: 15 (ED25519)\n"
      "PrivateKey: ODIyNjAzODQ2MjgwODAxMjI2NDUxOTAyMDQxNDIyNjI=\n",
      "example.com. 3600 IN DNSKEY 257 3 15 l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=\n", dir);
  ASSERT_NE(key.pkey, nullptr);
  const Record mx = rr("example.com.", "MX", "10 mail.example.com.");
  RrsigFields f{type::MX,   15,      rrsig_labels(mx.owner), 3600, 1440021600,
                1438207200, key.tag, name("example.com.")};
  SignedData data;
  auto octets = data.build(f, mx.owner, std::span(&mx.rdata, 1));
  EXPECT_EQ(hex(octets),
            "000f0f0200000e1055d4fc6055b94ce00e1d076578616d706c6503636f6d00"
            "076578616d706c6503636f6d00000f000100000e100014000a046d61696c076578616d706c6503636f6d"
            "00");
  Signer signer;
  std::array<std::uint8_t, kSignatureSize> sig{};
  ASSERT_TRUE(signer.sign(key, octets, sig));
  EXPECT_EQ(
      b64(sig),
      "oL9krJun7xfBOIWcGHi7mag5/hdZrKWw15jPGrHpjQeRAvTdszaPD+QLs3fx8A4M3e23mRZ9VrbpMngwcrqNAg==");
}

TEST(Signer, Rfc6605EcdsaExampleSignedDataIsWhatTheRfcSignatureCovers) {
  TempDir dir("herald-sign");
  SigningKey key = key_from_text(
      "example.net.", "Kexample.net.+013+55648",
      "Private-key-format: v1.2\nAlgorithm: 13 (ECDSAP256SHA256)\n"
      "PrivateKey: GU6SnQ/Ou+xC5RumuIUIuJZteXT2z0O/ok1s38Et6mQ=\n",
      "example.net. 3600 IN DNSKEY 257 3 13 GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64c"
      "YbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA==\n",
      dir);
  ASSERT_NE(key.pkey, nullptr);
  EXPECT_EQ(key.tag, 55648);
  const Record a = rr("www.example.net.", "A", "192.0.2.1");
  std::uint32_t expiration = 0, inception = 0;
  ASSERT_TRUE(detail::time_decode("20100909100439", expiration));
  ASSERT_TRUE(detail::time_decode("20100812100439", inception));
  RrsigFields f{type::A,   13,      rrsig_labels(a.owner), 3600, expiration,
                inception, key.tag, name("example.net.")};
  SignedData data;
  auto octets = data.build(f, a.owner, std::span(&a.rdata, 1));
  EXPECT_EQ(hex(octets),
            "00010d0300000e104c88b1374c63c737d960076578616d706c65036e65740003777777076578616d706c"
            "65036e6574000001000100000e100004c0000201");

  const std::string dnskey = record_to_text(dnskey_record(name("example.net."), key));
  const std::string rfc_rrsig =
      "www.example.net. 3600 IN RRSIG A 13 3 3600 20100909100439 20100812100439 55648 "
      "example.net. "
      "qx6wLYqmh+l9oCKTN6qIc+bw6ya+KJ8oMz0YP107epXAyGmt+3SNruPFKG7tZoLBLlUzGGus7ZwmwWep6"
      "66VCw==";
  const std::time_t in_2010 = 1282000000;
  EXPECT_EQ(test::ldns_verify({record_to_text(a)}, rfc_rrsig, {dnskey}, in_2010), "");

  // And a signature of ours over the same data verifies too.
  Signer signer;
  std::array<std::uint8_t, kSignatureSize> sig{};
  ASSERT_TRUE(signer.sign(key, octets, sig));
  std::vector<std::uint8_t> rdata;
  append_rrsig_rdata(f, sig, rdata);
  const std::string ours = record_to_text(Record{a.owner, type::RRSIG, rrclass::IN, 3600, rdata});
  EXPECT_EQ(test::ldns_verify({record_to_text(a)}, ours, {dnskey}, in_2010), "");
  // A changed record does not.
  const Record b = rr("www.example.net.", "A", "192.0.2.2");
  EXPECT_NE(test::ldns_verify({record_to_text(b)}, ours, {dnskey}, in_2010), "");
}

// The online test zone under `zone`, grouped into RRsets by owner (any
// case) and type.
std::map<std::pair<std::string, std::uint16_t>, std::vector<Record>> rrsets_of(
    const std::string& zone) {
  const std::string text = test::online_zone_text(zone);
  ZoneOptions opt;
  opt.origin = name(zone);
  ZoneResult parsed = parse_zone_text(text, "online.example.zone", opt);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.errors[0].to_string());
  std::map<std::pair<std::string, std::uint16_t>, std::vector<Record>> sets;
  for (const Record& r : parsed.records) {
    sets[{r.owner.lowercased().to_text(), r.type.value}].push_back(r);
  }
  return sets;
}

TEST(Signer, EveryRRsetOfTheOnlineZoneVerifiesWithLdnsUnderEveryKey) {
  struct KeyCase {
    std::string zone, base;
  };
  const KeyCase keys[] = {
      {"online.example.", "Konline.example.+013+11254"},
      {"ed25519.example.", "Ked25519.example.+015+36831"},
      {"split.example.", "Ksplit.example.+013+34179"},
      {"split.example.", "Ksplit.example.+013+18214"},
  };
  Signer signer;
  SignedData data;
  for (const KeyCase& kc : keys) {
    SCOPED_TRACE(kc.base);
    auto key = read_key_pair(kData + "/online/keys/" + kc.base + ".private", name(kc.zone));
    ASSERT_TRUE(key) << key.error().to_string();
    const std::string dnskey = record_to_text(dnskey_record(name(kc.zone), *key));
    auto sets = rrsets_of(kc.zone);
    ASSERT_GT(sets.size(), 30u);
    for (const auto& [id, records] : sets) {
      SCOPED_TRACE(record_to_text(records.front()));
      // Owners as they are written, mixed case included: the signature is
      // over the lower-cased owner, and ldns lower-cases it too.
      const Name& owner = records.front().owner;
      std::vector<std::vector<std::uint8_t>> rdatas;
      std::vector<std::string> texts;
      for (const Record& r : records) {
        rdatas.push_back(r.rdata);
        texts.push_back(record_to_text(r));
      }
      // Reversed, so the signer's canonical order is what puts them right.
      std::reverse(rdatas.begin(), rdatas.end());
      RrsigFields f{records.front().type,
                    key->algorithm,
                    rrsig_labels(owner),
                    records.front().ttl,
                    kExpiration,
                    kInception,
                    key->tag,
                    name(kc.zone)};
      std::array<std::uint8_t, kSignatureSize> sig{};
      ASSERT_TRUE(signer.sign(*key, data.build(f, owner, rdatas), sig));
      std::vector<std::uint8_t> rrsig;
      append_rrsig_rdata(f, sig, rrsig);
      const std::string rrsig_text =
          record_to_text(Record{owner, type::RRSIG, rrclass::IN, f.original_ttl, rrsig});
      EXPECT_EQ(test::ldns_verify(texts, rrsig_text, {dnskey}, kCheckTime), "") << rrsig_text;
    }
  }
}

// A wildcard's RRset answers a name below it (RFC 4592). Signed as its own
// owner `*.wild` (labels without the "*"), the validator rebuilds the
// wildcard owner from any name it was expanded to; an online signer signs
// the expansion as the query name itself (RFC 9824 §3.3), labels counted
// in full. Both verify.
TEST(Signer, AWildcardRRsetVerifiesSignedAsWildcardOrAsTheQueryName) {
  auto key = read_key_pair(kData + "/online/keys/Konline.example.+013+11254.private",
                           name("online.example."));
  ASSERT_TRUE(key);
  const std::string dnskey = record_to_text(dnskey_record(name("online.example."), *key));
  const Record wild = rr("*.wild.online.example.", "A", "192.0.2.99");
  EXPECT_EQ(rrsig_labels(wild.owner), 3);
  Signer signer;
  SignedData data;
  for (const char* owner_text : {"*.wild.online.example.", "host.wild.online.example."}) {
    SCOPED_TRACE(owner_text);
    const Name owner = name(owner_text);
    RrsigFields f{type::A,    13,       rrsig_labels(owner),    3600, kExpiration,
                  kInception, key->tag, name("online.example.")};
    std::array<std::uint8_t, kSignatureSize> sig{};
    ASSERT_TRUE(signer.sign(*key, data.build(f, owner, std::span(&wild.rdata, 1)), sig));
    std::vector<std::uint8_t> rrsig;
    append_rrsig_rdata(f, sig, rrsig);
    Record answer = wild;
    answer.owner = owner;
    EXPECT_EQ(
        test::ldns_verify({record_to_text(answer)},
                          record_to_text(Record{owner, type::RRSIG, rrclass::IN, 3600, rrsig}),
                          {dnskey}, kCheckTime),
        "");
  }
}

TEST(CanonicalRdata, FoldsTheNamesOfTheRfc4034TypesOnly) {
  struct Case {
    const char* type;
    const char* rdata;
    const char* canonical;  // the same RDATA written in lower case where it folds
  };
  const Case cases[] = {
      {"MX", "10 Mail.Example.", "10 mail.example."},
      {"SOA", "NS.Example. Host.Example. 1 2 3 4 5", "ns.example. host.example. 1 2 3 4 5"},
      {"SRV", "0 5 5060 Sip.Example.", "0 5 5060 sip.example."},
      {"NAPTR", "1 2 \"S\" \"SIP\" \"\" Rep.Example.", "1 2 \"S\" \"SIP\" \"\" rep.example."},
      {"RRSIG", "A 13 2 60 20300101000000 20200101000000 1 Signer.Example. AAAA",
       "A 13 2 60 20300101000000 20200101000000 1 signer.example. AAAA"},
      // Not folded: NSEC (RFC 6840 §5.1), and every type after RFC 3597.
      {"NSEC", "Next.Example. A", "Next.Example. A"},
      {"SVCB", "1 Target.Example.", "1 Target.Example."},
      {"TXT", "\"Mixed Case\"", "\"Mixed Case\""},
      {"HINFO", "\"CPU\" \"OS\"", "\"CPU\" \"OS\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    const Record in = rr("x.example.", c.type, c.rdata);
    const Record want = rr("x.example.", c.type, c.canonical);
    std::vector<std::uint8_t> out{0xEE};  // appends after what is there
    append_canonical_rdata(in.type, in.rdata, out);
    ASSERT_EQ(out.size(), 1 + want.rdata.size());
    EXPECT_EQ(hex(std::span(out).subspan(1)), hex(want.rdata));
  }
}

// RFC 4034 §6.2 folds names in six types this codebase has no layout for;
// a zone signed online refuses them (their names cannot be found to fold).
TEST(CanonicalRdata, TheFoldedTypesWithoutALayoutHaveNoKnownForm) {
  for (std::uint16_t t : {3, 4, 24, 26, 30, 38}) {  // MD MF SIG PX NXT A6
    EXPECT_TRUE(canonical_lowercases(RRType{t})) << t;
    EXPECT_FALSE(canonical_form_known(RRType{t})) << t;
  }
  for (RRType t : {type::A, type::MX, type::NSEC, type::SVCB, type::RRSIG}) {
    EXPECT_TRUE(canonical_form_known(t)) << t.value;
  }
  EXPECT_FALSE(canonical_lowercases(type::NSEC));
  EXPECT_FALSE(canonical_lowercases(type::SVCB));
}

TEST(SignedData, RdataInCanonicalOrderShorterFirstEachOnce) {
  const std::vector<std::vector<std::uint8_t>> sorted = {
      rr("t.example.", "TXT", "\"a\"").rdata,       // 01 61
      rr("t.example.", "TXT", "\"a\" \"\"").rdata,  // 01 61 00: longer, same prefix
      rr("t.example.", "TXT", "\"b\"").rdata,       // 01 62
      rr("t.example.", "TXT", "\"ab\"").rdata,      // 02 61 62
  };
  std::vector<std::vector<std::uint8_t>> shuffled = {sorted[3], sorted[1], sorted[2], sorted[0],
                                                     sorted[2]};
  RrsigFields f{type::TXT, 13, 2, 60, kExpiration, kInception, 1, name("example.")};
  SignedData a, b;
  const auto want = a.build(f, name("t.example."), sorted);
  const std::vector<std::uint8_t> want_copy(want.begin(), want.end());
  EXPECT_EQ(hex(b.build(f, name("t.example."), shuffled)), hex(want_copy));
  // The RRs follow the fields in the sorted order: find each RDATA's octets.
  std::size_t at = 0;
  for (const auto& rd : sorted) {
    auto it = std::search(want_copy.begin() + static_cast<std::ptrdiff_t>(at), want_copy.end(),
                          rd.begin(), rd.end());
    ASSERT_NE(it, want_copy.end());
    at = static_cast<std::size_t>(it - want_copy.begin()) + rd.size();
  }
}

// DER ECDSA-Sig-Value -> r | s at the edges: a short integer is padded, an
// integer with its high bit set (DER adds a 0x00) loses that octet, one
// wider than 32 octets and malformed DER are refused.
TEST(Signer, DerSignatureToRawAtTheIntegerWidths) {
  auto der_of = [](const std::string& r_hex, const std::string& s_hex) {
    BIGNUM* r = nullptr;
    BIGNUM* s = nullptr;
    BN_hex2bn(&r, r_hex.c_str());
    BN_hex2bn(&s, s_hex.c_str());
    OpensslPtr<ECDSA_SIG> sig(ECDSA_SIG_new());
    ECDSA_SIG_set0(sig.get(), r, s);  // takes r and s
    unsigned char* buf = nullptr;
    const int len = i2d_ECDSA_SIG(sig.get(), &buf);
    std::vector<std::uint8_t> der(buf, buf + len);
    OPENSSL_free(buf);
    return der;
  };
  std::array<std::uint8_t, kSignatureSize> out{};
  const std::string high(64, 'F');  // 32 octets of 0xFF: DER writes 33
  ASSERT_TRUE(der_to_raw_p256(der_of("1", high), out));
  EXPECT_EQ(hex(out), std::string(62, '0') + "01" + std::string(64, 'f'));
  EXPECT_EQ(der_of("1", high).size(), 2u + 3u + 35u);
  EXPECT_FALSE(der_to_raw_p256(der_of("1" + high, "1"), out));  // 33 octets of value
  auto good = der_of("2", "3");
  EXPECT_FALSE(der_to_raw_p256(std::span(good).first(good.size() - 1), out));
  good.push_back(0);
  EXPECT_FALSE(der_to_raw_p256(good, out));  // trailing octet
}

// ldns-keygen writes an ECDSA secret without its leading zero octets: this
// committed key's d is 31 octets (found when one D1 zone in 256 failed).
TEST(Signer, AnEcdsaSecretWrittenWithoutItsLeadingZeroLoadsAndSigns) {
  const std::string base = kData + "/online/short-secret/Kd1z01658.bench.+013+00900";
  auto k = read_key_pair(base + ".private", name("d1z01658.bench."));
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ(k->tag, 900);
  const Record a = rr("www.d1z01658.bench.", "A", "192.0.2.1");
  RrsigFields f{type::A,    13,     rrsig_labels(a.owner),  3600, 2082758400,
                1767225600, k->tag, name("d1z01658.bench.")};
  SignedData data;
  Signer signer;
  std::array<std::uint8_t, kSignatureSize> sig{};
  ASSERT_TRUE(signer.sign(*k, data.build(f, a.owner, std::span(&a.rdata, 1)), sig));
  std::vector<std::uint8_t> rdata;
  append_rrsig_rdata(f, sig, rdata);
  const std::string dnskey =
      record_to_text(Record{name("d1z01658.bench."), type::DNSKEY, rrclass::IN, 3600, k->dnskey});
  EXPECT_EQ(
      test::ldns_verify({record_to_text(a)},
                        record_to_text(Record{a.owner, type::RRSIG, rrclass::IN, 3600, rdata}),
                        {dnskey}, 1796083200),
      "");
}

}  // namespace
}  // namespace herald::dns::signing
