#include "core/log.hpp"

#include <gtest/gtest.h>

namespace herald::log {
namespace {

TEST(Log, TextQuotesOnlyWhatNeedsIt) {
  std::string s = format_body(
      Format::text, "listening",
      {{"addr", "127.0.0.1:80"}, {"n", 3}, {"why", "two words"}, {"ok", true}, {"empty", ""}});
  EXPECT_EQ(s, R"(listening addr=127.0.0.1:80 n=3 why="two words" ok=true empty="")");
}

TEST(Log, JsonEscapes) {
  std::string s = format_body(
      Format::json, "a \"b\"\n",
      {{"k", "x\ty"}, {"u", std::uint64_t{18446744073709551615u}}, {"d", -1.5}, {"c", "\x01"}});
  EXPECT_EQ(s, R"("msg":"a \"b\"\n","k":"x\ty","u":18446744073709551615,"d":-1.5,"c":"\u0001")");
}

TEST(Log, Levels) {
  Level l{};
  EXPECT_TRUE(parse_level("warning", l));
  EXPECT_EQ(l, Level::warn);
  EXPECT_FALSE(parse_level("loud", l));
  init(Level::warn, Format::text);
  EXPECT_FALSE(enabled(Level::info));
  EXPECT_TRUE(enabled(Level::error));
  init(Level::info, Format::text);
}

}  // namespace
}  // namespace herald::log
