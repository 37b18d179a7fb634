// Unicode case folding checked against Unicode's own CaseFolding.txt
// (Debian's unicode-data), every code point, instead of entries copied by
// hand: inside the blocks the engine claims (detail::kFoldCoverage) a code
// point folds to its C or S mapping; outside them it folds to itself, even
// where Unicode gives it a mapping. The engine's function, the automata
// folding text on the fly, and the naive matcher's own table are each held
// to the file.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "match/detail/casefold.hpp"
#include "match/matcher.hpp"
#include "match/naive.hpp"
#include "support.hpp"

namespace herald::match {
namespace {

constexpr std::uint32_t kMaxCodePoint = 0x10FFFF;

// CaseFolding.txt's simple folding: the C (common) and S (simple) lines,
// "<code>; <status>; <mapping>; # <name>". F (full) and T (Turkic) lines are
// not simple folding.
const std::map<std::uint32_t, std::uint32_t>& simple_folding() {
  static const std::map<std::uint32_t, std::uint32_t> table = [] {
    std::map<std::uint32_t, std::uint32_t> t;
    std::ifstream in(HERALD_CASE_FOLDING_TXT);
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      std::istringstream fields(line);
      std::string code, status, mapping;
      if (!std::getline(fields, code, ';') || !std::getline(fields, status, ';') ||
          !std::getline(fields, mapping, ';')) {
        continue;  // a comment or blank line
      }
      if (status != " C" && status != " S") continue;
      // Safety: hexadecimal code points of at most six digits fit 32 bits.
      t[static_cast<std::uint32_t>(std::stoul(code, nullptr, 16))] =
          static_cast<std::uint32_t>(std::stoul(mapping, nullptr, 16));
    }
    return t;
  }();
  return table;
}

bool covered(std::uint32_t cp) {
  return detail::in_blocks(detail::kFoldCoverage, cp);
}

// What the engine claims for a code point.
std::uint32_t claimed(std::uint32_t cp) {
  if (!covered(cp)) return cp;
  auto it = simple_folding().find(cp);
  return it == simple_folding().end() ? cp : it->second;
}

bool is_surrogate(std::uint32_t cp) {
  return cp >= 0xD800 && cp <= 0xDFFF;
}

// The file was found and read: without this, an empty table would make the
// tests below check only that nothing folds outside the blocks.
TEST(CaseFoldingOracle, TheFileIsRead) {
  const auto& t = simple_folding();
  EXPECT_GT(t.size(), 1400u) << HERALD_CASE_FOLDING_TXT;
  EXPECT_EQ(t.count('A') ? t.at('A') : 0, std::uint32_t{'a'});
  EXPECT_EQ(t.count(0x1E9E) ? t.at(0x1E9E) : 0, 0xDFu);  // status S, beside an F line
}

// Every code point, against the engine's folding function.
TEST(CaseFoldingOracle, EngineFoldsEveryCodePointAsClaimed) {
  std::vector<std::string> wrong;
  for (std::uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    if (is_surrogate(cp)) continue;
    const std::uint32_t got = detail::fold_simple(cp);
    if (got != claimed(cp) && wrong.size() < 20) {
      std::ostringstream m;
      m << std::hex << "U+" << cp << " folds to U+" << got << ", Unicode says U+" << claimed(cp)
        << (covered(cp) ? "" : " (outside the covered blocks: itself)");
      wrong.push_back(m.str());
    }
  }
  for (const std::string& w : wrong) ADD_FAILURE() << w;
}

// The naive matcher's own table, against the same claim.
TEST(CaseFoldingOracle, NaiveFoldsEveryCodePointAsClaimed) {
  std::size_t wrong = 0;
  for (std::uint32_t cp = 0; cp <= kMaxCodePoint && wrong < 20; ++cp) {
    if (is_surrogate(cp)) continue;
    if (naive_fold(cp) != claimed(cp)) {
      ++wrong;
      ADD_FAILURE() << std::hex << "U+" << cp << " folds to U+" << naive_fold(cp)
                    << ", Unicode says U+" << claimed(cp);
    }
  }
}

// Through the automata, which fold text as it streams (ASCII by table,
// other units decoded, folded and re-encoded, lengths changing): one keyword
// per folded form Unicode gives, a text of every code point Unicode folds,
// each between spaces. A covered code point matches exactly the keyword of
// its folded form; one outside the blocks matches none.
TEST(CaseFoldingOracle, EveryPresetFindsTheFoldedForms) {
  std::vector<std::string> keywords;
  std::map<std::uint32_t, std::uint32_t> keyword_of;  // folded form -> pattern id
  for (const auto& [from, to] : simple_folding()) {
    // Safety: fewer than 2^32 keywords.
    if (keyword_of.emplace(to, static_cast<std::uint32_t>(keywords.size())).second) {
      keywords.push_back(testing::utf8(to));
    }
  }
  std::string text;
  std::vector<Match> want;
  for (const auto& [from, to] : simple_folding()) {
    text += ' ';
    const std::size_t start = text.size();
    text += testing::utf8(from);
    if (covered(from)) want.push_back({PatternID{keyword_of.at(to)}, start, text.size()});
  }
  text += ' ';
  ASSERT_GT(want.size(), 600u);  // the covered blocks hold over 600 mappings
  for (const Preset p : testing::kPresets) {
    const Matcher m =
        Matcher::build(keywords, Options{p, MatchKind::Overlapping, CaseFold::Unicode, false});
    EXPECT_EQ(testing::describe(m.find(text)), testing::describe(want))
        << testing::describe(Options{p, MatchKind::Overlapping, CaseFold::Unicode, false});
  }
}

}  // namespace
}  // namespace herald::match
