// The one JSON string escaper (core/json.hpp) against an independent
// parser: every byte value escaped and read back by simdjson gives the
// bytes it started from, and the log's JSON lines use the same escaper.
#include "core/json.hpp"

#include <gtest/gtest.h>

#include <simdjson.h>

#include <string>

#include "core/log.hpp"

namespace herald::json {
namespace {

std::string parsed(const std::string& doc) {
  simdjson::dom::parser parser;
  std::string_view value;
  EXPECT_EQ(parser.parse(doc).get(value), simdjson::SUCCESS) << doc;
  return std::string(value);
}

TEST(JsonEscape, EveryAsciiByteReadsBackUnchanged) {
  std::string all;
  for (int c = 1; c < 0x80; ++c) all += static_cast<char>(c);  // Safety: 1-127 fit a char.
  all += "\xea\xb0\x80 \xf0\x9f\x98\x80";                      // UTF-8 passes through as it is
  std::string out;
  append_string(out, all);
  EXPECT_EQ(parsed(out), all);
}

TEST(JsonEscape, ControlCharactersAndDelAreEscapedAsTheyShouldBeRead) {
  std::string out;
  append_string(out, "a\"b\\c\nd\re\tf\x01g\x1fh\x7f");
  EXPECT_EQ(out, R"("a\"b\\c\nd\re\tf\u0001g\u001fh\u007f")");
  std::string inner;
  append_escaped(inner, "x\"y");
  EXPECT_EQ(inner, R"(x\"y)");
}

TEST(JsonEscape, TheLogWritesWithTheSameEscaper) {
  const std::string text("q\"\x7f\x02\n", 5);
  std::string expected = R"("msg":)";
  append_string(expected, text);
  EXPECT_EQ(log::format_body(log::Format::json, text, {}), expected);
}

}  // namespace
}  // namespace herald::json
