// `herald match` as a real process: each subcommand, the flags, and the
// error exits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/process.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;

struct Files {
  std::string dict =
      write_temp_file("dict.txt", "keyword5\nkeyword50\n\nhello\n\xD0\xBA\xD0\xBE\xD1\x82\n");
  std::string text =
      write_temp_file("text.txt", "say Hello to keyword50 and the \xD0\x9A\xD0\x9E\xD0\xA2\n");
};

RunResult herald(std::vector<std::string> args) {
  args.insert(args.begin(), HERALD_PATH);
  return run(std::move(args));
}

TEST(HeraldMatchCli, FindWithSpansAndKinds) {
  Files f;
  auto r = herald({"match", "find", "--dict", f.dict, f.text});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, f.text + ":13-21: keyword5\n" + f.text + ":13-22: keyword50\n");
  auto longest = herald({"match", "find", "--dict", f.dict, "--kind", "leftmost-longest", f.text});
  EXPECT_EQ(longest.output, f.text + ":13-22: keyword50\n");
  // Unicode folding finds "hello" and the Cyrillic word; code-point spans
  // differ from byte spans after multi-byte text.
  auto json = herald({"match", "find", "--dict", f.dict, "--case", "unicode", "--json", f.text});
  EXPECT_THAT(json.output, HasSubstr(R"("keyword":"hello","start":4,"end":9)"));
  EXPECT_THAT(json.output, HasSubstr("\"start\":31,\"end\":37,\"cp_start\":31,\"cp_end\":34}"));
}

TEST(HeraldMatchCli, FindSetMaskContainsSuggest) {
  Files f;
  auto set = herald({"match", "find-set", "--dict", f.dict, "--case", "ascii", f.text});
  EXPECT_EQ(set.output, f.text + ": hello\n" + f.text + ": keyword5\n" + f.text + ": keyword50\n");
  auto mask = herald({"match", "mask", "--dict", f.dict, "--case", "unicode", f.text});
  EXPECT_EQ(mask.output, "say ***** to ********* and the ***\n");
  auto yes = herald({"match", "contains", "--dict", f.dict, "--whole-word", f.text});
  EXPECT_EQ(yes.exit_code, 0);
  EXPECT_EQ(yes.output, "yes\n");
  std::string plain = write_temp_file("plain.txt", "nothing to see\n");
  auto no = herald({"match", "contains", "--dict", f.dict, plain});
  EXPECT_EQ(no.exit_code, 1);
  auto suggest = herald({"match", "suggest", "--dict", f.dict, "key"});
  EXPECT_EQ(suggest.output, "keyword5\nkeyword50\n");
}

TEST(HeraldMatchCli, ErrorsExitTwoAndSayWhere) {
  Files f;
  auto missing = herald({"match", "find", "--dict", "/nonexistent/dict.txt", f.text});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.output, HasSubstr("cannot read '/nonexistent/dict.txt'"));
  std::string long_word = write_temp_file("long.txt", "ok\n" + std::string(300, 'x') + "\n");
  auto too_long = herald({"match", "find", "--dict", long_word, f.text});
  EXPECT_EQ(too_long.exit_code, 2);
  EXPECT_THAT(too_long.output, HasSubstr("long.txt:2: keyword of 300 bytes"));
  auto bad_flag = herald({"match", "find", "--dict", f.dict, "--kind", "sideways", f.text});
  EXPECT_EQ(bad_flag.exit_code, 2);
}

}  // namespace
}  // namespace herald::test
