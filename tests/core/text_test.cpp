#include "core/text.hpp"

#include <gtest/gtest.h>

namespace herald {
namespace {

TEST(Trim, SpacesAndTabsAtBothEndsOnly) {
  EXPECT_EQ(trim("  a b\t"), "a b");
  EXPECT_EQ(trim("\t\tx"), "x");
  EXPECT_EQ(trim("x  "), "x");
  EXPECT_EQ(trim("x"), "x");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("a\r"), "a\r");  // only the blanks asked for
}

TEST(Trim, OtherBlanks) {
  EXPECT_EQ(trim("key: v \r", " \t\r"), "key: v");
  EXPECT_EQ(trim("\r\r", " \t\r"), "");
  static_assert(trim(" k ") == "k");
}

}  // namespace
}  // namespace herald
