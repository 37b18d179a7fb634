// The schema against TOML text and the environment, with a small settings
// struct of every field kind. heraldd's own keys are tested in cli_test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "core/config/schema.hpp"

namespace herald::config {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

struct Sample {
  bool flag = false;
  int count = 5;
  std::string name = "x";
  std::string mode = "fast";
  Endpoint listen{"127.0.0.1", 1};
  milliseconds timeout{1000};
  std::uint64_t size = 1024;
};

struct Fixture : ::testing::Test {
  Sample s;
  Schema schema;
  Fixture() {
    schema.add_bool("a.flag", s.flag, "a flag");
    schema.add_int("a.count", s.count, 1, 100, "a count");
    schema.add_string("a.name", s.name, "a name", 8);
    schema.add_choice("b.mode", s.mode, {"fast", "slow"}, "a mode");
    schema.add_endpoint("b.listen", s.listen, "an address");
    schema.add_duration("b.timeout", s.timeout, milliseconds(10), milliseconds(60'000), "a time");
    schema.add_size("b.size", s.size, 1, 1 << 20, "a size");
  }
  std::vector<Error> toml(std::string_view text) { return apply_toml(schema, text, "t.toml"); }
};

TEST_F(Fixture, GoodDocumentSetsEveryKind) {
  auto errors = toml(R"(
[a]
flag = true
count = 7
name = "abc"
[b]
mode = "slow"
listen = "[::1]:99"
timeout = "2s"
size = "64KiB"
)");
  ASSERT_TRUE(errors.empty()) << errors[0].to_string();
  EXPECT_TRUE(s.flag);
  EXPECT_EQ(s.count, 7);
  EXPECT_EQ(s.name, "abc");
  EXPECT_EQ(s.mode, "slow");
  EXPECT_EQ(s.listen, (Endpoint{"::1", 99}));
  EXPECT_EQ(s.timeout, milliseconds(2000));
  EXPECT_EQ(s.size, 65536u);
}

TEST_F(Fixture, DottedKeysAndInlineTablesWork) {
  auto errors = toml("a.count = 9\nb = { mode = \"slow\" }\n");
  ASSERT_TRUE(errors.empty()) << errors[0].to_string();
  EXPECT_EQ(s.count, 9);
  EXPECT_EQ(s.mode, "slow");
}

TEST_F(Fixture, SyntaxErrorNamesLineAndColumn) {
  auto errors = toml("[a]\ncount = 3\nname = \"unterminated\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].origin.line, 3u);
  EXPECT_THAT(errors[0].to_string(), HasSubstr("t.toml:3:"));
  EXPECT_THAT(errors[0].to_string(), HasSubstr("TOML syntax error"));
}

TEST_F(Fixture, UnknownKeySuggestsTheNearOne) {
  auto errors = toml("[a]\ncount = 3\ncoutn = 4\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].key, "a.coutn");
  EXPECT_EQ(errors[0].origin.line, 3u);
  EXPECT_THAT(errors[0].message, HasSubstr("unknown key"));
  EXPECT_THAT(errors[0].message, HasSubstr("did you mean 'a.count'"));
  EXPECT_EQ(s.count, 3);  // the good key before it still applied
}

TEST_F(Fixture, UnknownSectionIsReported) {
  auto errors = toml("[c]\nx = 1\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].key, "c");
  EXPECT_THAT(errors[0].message, HasSubstr("unknown section"));
}

TEST_F(Fixture, WrongTypesSayWhatWasExpected) {
  auto errors = toml(R"(
[a]
flag = "yes please"
count = "seven"
name = 3
[b]
listen = 8080
timeout = 10
size = -1
mode = ["fast"]
)");
  ASSERT_EQ(errors.size(), 7u);
  // toml++ keeps a table's keys sorted, so errors come in key order.
  std::map<std::string, std::string> by_key;
  for (const auto& e : errors) by_key[e.key] = e.to_string();
  EXPECT_THAT(by_key["a.flag"], HasSubstr("t.toml:3:1: a.flag: expected true or false"));
  EXPECT_THAT(by_key["a.count"], HasSubstr("expected an integer in 1..100, got \"seven\""));
  EXPECT_THAT(by_key["a.name"], HasSubstr("expected a string, got 3"));
  EXPECT_THAT(by_key["b.listen"], HasSubstr("t.toml:7:1: b.listen: expected host:port"));
  EXPECT_THAT(by_key["b.timeout"], HasSubstr("expected a duration in 10ms..1m"));
  EXPECT_THAT(by_key["b.size"], HasSubstr("expected a size"));
  EXPECT_THAT(by_key["b.mode"], HasSubstr("expected one of \"fast\", \"slow\", got an array"));
}

TEST_F(Fixture, OutOfRangeValuesAreRejectedAndLeaveTheDefault) {
  auto errors = toml("[a]\ncount = 101\nname = \"123456789\"\n[b]\ntimeout = \"5ms\"\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_THAT(errors[0].message, HasSubstr("got 101"));
  EXPECT_THAT(errors[1].message, HasSubstr("at most 8 bytes"));
  EXPECT_THAT(errors[2].message, HasSubstr("got \"5ms\""));
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.name, "x");
  EXPECT_EQ(s.timeout, milliseconds(1000));
}

TEST_F(Fixture, KeyThatIsASectionIsNotAValue) {
  auto errors = toml("a = 3\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].message, HasSubstr("unknown key"));
}

TEST_F(Fixture, EnvironmentAppliesAndReportsUnknownNames) {
  std::string e1 = "HERALD_A_COUNT=42", e2 = "HERALD_B_TIMEOUT=3s", e3 = "HERALD_NOPE=1",
              e4 = "PATH=/bin", e5 = "HERALD_CONFIG=/x.toml";
  char* env[] = {e1.data(), e2.data(), e3.data(), e4.data(), e5.data(), nullptr};
  std::vector<std::string> unknown;
  auto errors = apply_environment(schema, env, &unknown);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(s.count, 42);
  EXPECT_EQ(s.timeout, milliseconds(3000));
  EXPECT_EQ(unknown, std::vector<std::string>{"HERALD_NOPE"});
}

TEST_F(Fixture, EnvironmentErrorsNameTheVariable) {
  std::string e1 = "HERALD_A_COUNT=lots";
  char* env[] = {e1.data(), nullptr};
  auto errors = apply_environment(schema, env, nullptr);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].to_string(),
            "config error: environment HERALD_A_COUNT: a.count: expected an integer in 1..100, "
            "got \"lots\"");
}

TEST_F(Fixture, ToTomlRoundTrips) {
  s.count = 77;
  s.listen = {"::1", 5};
  std::string doc = schema.to_toml();
  Sample copy;
  Schema other;
  other.add_bool("a.flag", copy.flag, "");
  other.add_int("a.count", copy.count, 1, 100, "");
  other.add_string("a.name", copy.name, "");
  other.add_choice("b.mode", copy.mode, {"fast", "slow"}, "");
  other.add_endpoint("b.listen", copy.listen, "");
  other.add_duration("b.timeout", copy.timeout, milliseconds(10), milliseconds(60'000), "");
  other.add_size("b.size", copy.size, 1, 1 << 20, "");
  auto errors = apply_toml(other, doc, "printed");
  ASSERT_TRUE(errors.empty()) << doc;
  EXPECT_EQ(copy.count, 77);
  EXPECT_EQ(copy.listen, s.listen);
  EXPECT_EQ(copy.size, s.size);
}

TEST_F(Fixture, MissingFileIsAClearError) {
  auto errors = apply_toml_file(schema, "/nonexistent/herald.toml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].to_string(), HasSubstr("/nonexistent/herald.toml: cannot read"));
}

TEST(ConfigSchema, DuplicateKeyIsAProgrammingError) {
  Schema schema;
  bool a = false;
  schema.add_bool("x.y", a, "");
  EXPECT_THROW(schema.add_bool("x.y", a, ""), std::logic_error);
}

}  // namespace
}  // namespace herald::config
