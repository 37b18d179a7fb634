#include <gtest/gtest.h>

#include "core/config/values.hpp"

namespace herald::config {
namespace {

using std::chrono::milliseconds;

TEST(ConfigValues, Endpoint) {
  EXPECT_EQ(parse_endpoint("127.0.0.1:8080"), (Endpoint{"127.0.0.1", 8080}));
  EXPECT_EQ(parse_endpoint("localhost:0"), (Endpoint{"localhost", 0}));
  EXPECT_EQ(parse_endpoint("[::1]:443"), (Endpoint{"::1", 443}));
  EXPECT_EQ(parse_endpoint("[::1]:443")->to_string(), "[::1]:443");
  for (const char* bad : {"", "127.0.0.1", ":80", "host:", "host:65536", "host:-1", "::1:80",
                          "[::1]80", "[::1]", "host:80x"}) {
    EXPECT_FALSE(parse_endpoint(bad)) << bad;
  }
}

TEST(ConfigValues, ListItems) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(split_list("a, b ,\tc"), (V{"a", "b", "c"}));
  EXPECT_EQ(split_list(" a,, b ,"), (V{"a", "b"}));
  EXPECT_EQ(split_list("  "), V{});
  EXPECT_EQ(split_list("x=1 2"), V{"x=1 2"});  // inner spaces stay
}

TEST(ConfigValues, Duration) {
  EXPECT_EQ(parse_duration("0"), milliseconds(0));
  EXPECT_EQ(parse_duration("250ms"), milliseconds(250));
  EXPECT_EQ(parse_duration("10s"), milliseconds(10'000));
  EXPECT_EQ(parse_duration("1m30s"), milliseconds(90'000));
  EXPECT_EQ(parse_duration("2h"), milliseconds(7'200'000));
  for (const char* bad : {"", "10", "s", "-1s", "1.5s", "10 s", "1d", "99999999999h"}) {
    EXPECT_FALSE(parse_duration(bad)) << bad;
  }
  EXPECT_EQ(format_duration(milliseconds(90'000)), "90s");
  EXPECT_EQ(format_duration(milliseconds(120'000)), "2m");
  EXPECT_EQ(format_duration(milliseconds(250)), "250ms");
}

TEST(ConfigValues, Size) {
  EXPECT_EQ(parse_size("512"), 512u);
  EXPECT_EQ(parse_size("64KiB"), 65536u);
  EXPECT_EQ(parse_size("1MiB"), 1048576u);
  EXPECT_EQ(parse_size("2GB"), 2'000'000'000u);
  for (const char* bad : {"", "KiB", "1 KiB", "1kib", "-1", "99999999999999999999GiB"}) {
    EXPECT_FALSE(parse_size(bad)) << bad;
  }
  EXPECT_EQ(format_size(65536), "64KiB");
  EXPECT_EQ(format_size(1000), "1000");
}

TEST(ConfigValues, BoolAndInt) {
  EXPECT_EQ(parse_bool("TRUE"), true);
  EXPECT_EQ(parse_bool("off"), false);
  EXPECT_FALSE(parse_bool("maybe"));
  EXPECT_EQ(parse_int("-42"), -42);
  EXPECT_FALSE(parse_int("42x"));
  EXPECT_FALSE(parse_int(""));
}

}  // namespace
}  // namespace herald::config
