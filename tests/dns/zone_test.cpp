#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "dns/presentation.hpp"
#include "dns/zone_parser.hpp"
#include "test_util.hpp"

namespace herald::dns {
namespace {

using test::name;

ZoneResult parse(const std::string& text, const char* origin = "example.com.") {
  ZoneOptions opt;
  opt.origin = name(origin);
  return parse_zone_text(text, "test.zone", opt);
}

std::string dump(const ZoneResult& r) {
  std::string s;
  for (const auto& rec : r.records) s += record_to_text(rec) + "\n";
  for (const auto& e : r.errors) s += "error: " + e.to_string() + "\n";
  return s;
}

TEST(Zone, DirectivesDefaultsAndRelativeNames) {
  auto r = parse(
      "$TTL 1h\n"
      "@ IN SOA ns hostmaster ( 2024010101 ; serial\n"
      "     7200 3600 1209600 300 )\n"
      "  NS ns\n"
      "  NS ns.other.net.\n"
      "www 300 A 192.0.2.1\n"
      "    IN 600 AAAA 2001:db8::1\n"
      "$ORIGIN sub\n"
      "mail MX 10 @\n"
      "$TTL 2d\n"
      "txt TXT \"a;b\" (\"c\"\n"
      " \"d\")\n");
  EXPECT_EQ(dump(r),
            "example.com.\t3600\tIN\tSOA\tns.example.com. hostmaster.example.com. 2024010101 "
            "7200 3600 1209600 300\n"
            "example.com.\t3600\tIN\tNS\tns.example.com.\n"
            "example.com.\t3600\tIN\tNS\tns.other.net.\n"
            "www.example.com.\t300\tIN\tA\t192.0.2.1\n"
            "www.example.com.\t600\tIN\tAAAA\t2001:db8::1\n"
            "mail.sub.example.com.\t3600\tIN\tMX\t10 sub.example.com.\n"
            "txt.sub.example.com.\t172800\tIN\tTXT\t\"a;b\" \"c\" \"d\"\n");
}

TEST(Zone, LastTtlWithoutDollarTtl) {
  auto r = parse("a 100 A 192.0.2.1\nb A 192.0.2.2\n");
  EXPECT_EQ(dump(r),
            "a.example.com.\t100\tIN\tA\t192.0.2.1\n"
            "b.example.com.\t100\tIN\tA\t192.0.2.2\n");
  auto none = parse("a A 192.0.2.1\n");
  ASSERT_EQ(none.errors.size(), 1u);
  EXPECT_EQ(none.errors[0].message, "no TTL: give one, or a $TTL directive");
}

TEST(Zone, GenericTypesAndClasses) {
  auto r = parse("$TTL 60\na CLASS1 TYPE1 \\# 4 c0000201\nb IN TYPE65280 \\# 2 abcd\nc CH TXT x\n");
  EXPECT_EQ(dump(r),
            "a.example.com.\t60\tIN\tA\t192.0.2.1\n"
            "b.example.com.\t60\tIN\tTYPE65280\t\\# 2 abcd\n"
            "c.example.com.\t60\tCH\tTXT\t\"x\"\n");
}

TEST(Zone, ErrorsNameLineColumnAndDoNotHideOtherRecords) {
  auto r = parse(
      "$TTL 60\n"
      "ok1 A 192.0.2.1\n"
      "bad1 A 192.0.2.300\n"
      "ok2 A 192.0.2.2\n"
      "bad2 MX ten mail\n"
      "bad3 BOGUS x\n"
      "$FOO bar\n"
      "bad4 TXT \"unterminated\n"
      "ok3 A 192.0.2.3\n");
  ASSERT_EQ(r.records.size(), 2u + 1u) << dump(r);
  EXPECT_EQ(r.records[2].owner.to_text(), "ok3.example.com.");
  ASSERT_EQ(r.errors.size(), 5u) << dump(r);
  EXPECT_EQ(r.errors[0].to_string(), "test.zone:3:8: A RDATA: expected an IPv4 address");
  EXPECT_EQ(r.errors[1].to_string(), "test.zone:5:9: MX RDATA: expected a number up to 65535");
  EXPECT_EQ(r.errors[2].to_string(), "test.zone:6:6: expected a TTL, class or type, found 'BOGUS'");
  EXPECT_EQ(r.errors[3].line, 7u);
  EXPECT_EQ(r.errors[4].to_string(), "test.zone:8:10: unterminated quoted string");
}

TEST(Zone, UnbalancedParentheses) {
  auto r = parse("$TTL 60\na A 192.0.2.1 )\nb A ( 192.0.2.2\n");
  ASSERT_EQ(r.errors.size(), 2u) << dump(r);
  EXPECT_EQ(r.errors[0].message, "')' without '('");
  EXPECT_EQ(r.errors[1].message, "'(' not closed");
  EXPECT_EQ(r.errors[1].line, 3u);
}

TEST(Zone, RefusesMetaTypesAndBadTtl) {
  auto r = parse("a 60 OPT \\# 0\nb 60 ANY \\# 0\nc 2147483648 A 192.0.2.1\nd 1h30 A 192.0.2.1\n");
  EXPECT_TRUE(r.records.empty());
  EXPECT_EQ(r.errors.size(), 4u) << dump(r);
}

TEST(Zone, Generate) {
  auto r = parse(
      "$TTL 60\n"
      "$GENERATE 1-3 host$ A 192.0.2.$\n"
      "$GENERATE 0-4/2 ${10,3,d} CNAME h${0,2,x}\n"
      "$GENERATE 10-11 ${0,0,n} PTR x\\$.\n");
  EXPECT_EQ(dump(r),
            "host1.example.com.\t60\tIN\tA\t192.0.2.1\n"
            "host2.example.com.\t60\tIN\tA\t192.0.2.2\n"
            "host3.example.com.\t60\tIN\tA\t192.0.2.3\n"
            "010.example.com.\t60\tIN\tCNAME\th00.example.com.\n"
            "012.example.com.\t60\tIN\tCNAME\th02.example.com.\n"
            "014.example.com.\t60\tIN\tCNAME\th04.example.com.\n"
            "a.example.com.\t60\tIN\tPTR\tx\\$.\n"
            "b.example.com.\t60\tIN\tPTR\tx\\$.\n");
  auto bad = parse("$GENERATE 5-1 a A 1.2.3.4\n$GENERATE 0-9999999 a$ A 1.2.3.4\n");
  EXPECT_EQ(bad.errors.size(), 2u) << dump(bad);
}

class ZoneFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("herald_zone_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "sub");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
  std::filesystem::path dir_;
};

TEST_F(ZoneFiles, IncludeWithOriginAndConfinement) {
  write("main.zone",
        "$ORIGIN example.com.\n$TTL 60\n"
        "@ NS ns\n"
        "$INCLUDE sub/hosts.inc hosts.example.com.\n"
        "after A 192.0.2.9\n"
        "$INCLUDE ../escape.inc\n"
        "$INCLUDE /etc/passwd\n"
        "$INCLUDE missing.inc\n");
  write("sub/hosts.inc", "www A 192.0.2.1\n  AAAA 2001:db8::1\n");
  auto r = parse_zone_file((dir_ / "main.zone").string(), ZoneOptions{});
  EXPECT_EQ(dump(r).substr(0, dump(r).find("error")),
            "example.com.\t60\tIN\tNS\tns.example.com.\n"
            "www.hosts.example.com.\t60\tIN\tA\t192.0.2.1\n"
            "www.hosts.example.com.\t60\tIN\tAAAA\t2001:db8::1\n"
            "after.example.com.\t60\tIN\tA\t192.0.2.9\n");
  ASSERT_EQ(r.errors.size(), 3u) << dump(r);
  EXPECT_NE(r.errors[0].message.find("outside the zone directory"), std::string::npos);
  EXPECT_NE(r.errors[1].message.find("outside the zone directory"), std::string::npos);
  EXPECT_NE(r.errors[2].message.find("cannot read"), std::string::npos);
  EXPECT_EQ(r.errors[0].line, 6u);
}

TEST_F(ZoneFiles, IncludeRecursionIsBounded) {
  write("loop.zone", "$TTL 60\n$INCLUDE loop.zone\n");
  auto r = parse_zone_file((dir_ / "loop.zone").string(), ZoneOptions{});
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors.back().message.find("nested too deeply"), std::string::npos);
}

TEST(Zone, IncludeRefusedForTextInput) {
  auto r = parse("$INCLUDE x\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "$INCLUDE is not allowed here");
}

TEST(Zone, ParseTtl) {
  EXPECT_EQ(parse_ttl("0"), 0u);
  EXPECT_EQ(parse_ttl("1w2d3h4m5s"), 604800u + 2 * 86400 + 3 * 3600 + 4 * 60 + 5);
  EXPECT_EQ(parse_ttl("2147483647"), 2147483647u);
  EXPECT_FALSE(parse_ttl("2147483648"));
  EXPECT_FALSE(parse_ttl("1x"));
  EXPECT_FALSE(parse_ttl("h"));
  EXPECT_FALSE(parse_ttl(""));
  EXPECT_FALSE(parse_ttl("1h30"));
  // Large unit products are refused, not wrapped around 2^64.
  EXPECT_FALSE(parse_ttl("30500000000000w"));
  EXPECT_EQ(parse_ttl("3550w"), 2147040000u);
  EXPECT_FALSE(parse_ttl("3551w"));  // 2,147,644,800 s: over 2^31 - 1
}

}  // namespace
}  // namespace herald::dns
