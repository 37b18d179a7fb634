#include "core/random.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <thread>

namespace herald::random {
namespace {

TEST(RandomId, HexDigitsOfTheAskedLengthThatDoNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = hex_id();
    ASSERT_EQ(id.size(), 16u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_TRUE(seen.insert(id).second) << id;
  }
  EXPECT_EQ(hex_id(8).size(), 8u);
  EXPECT_EQ(hex_id(40).size(), 16u);  // one 64-bit draw at most
}

TEST(RandomId, ThreadsDrawFromGeneratorsSeededApart) {
  // Each thread's generator is seeded from the OS: two threads' first ids
  // differ (equal seeds would give equal sequences).
  std::string a;
  std::string b;
  std::thread ta([&] { a = hex_id(); });
  std::thread tb([&] { b = hex_id(); });
  ta.join();
  tb.join();
  EXPECT_NE(a, b);
}

TEST(RandomEntropy, FillsEveryOctet) {
  std::array<std::uint8_t, 64> a{};
  std::array<std::uint8_t, 64> b{};
  fill_entropy(a);
  fill_entropy(b);
  EXPECT_NE(a, b);
  EXPECT_NE(entropy64(), entropy64());
}

}  // namespace
}  // namespace herald::random
