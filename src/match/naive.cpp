#include "match/naive.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

#include "match/detail/word.hpp"

namespace herald::match {
namespace {

// Everything below is this file's own: the engines' UTF-8 units
// (detail/utf8.hpp), folding (detail/casefold.cpp) and whole-word test
// (detail/word.cpp) are not used, so a bug there cannot agree with itself
// here. Only the set of word characters (detail::is_word_cp) is shared: it
// is the definition of a word character, not a way of computing one.

// Sized by its contents: a regenerated table cannot leave zero pairs behind.
constexpr auto kFold = std::to_array<std::pair<std::uint32_t, std::uint32_t>>({
#include "naive_casefold.inc"
});

// A unit of text: a code point, or a lone byte that starts no well-formed
// sequence (kByte | the byte: never equal to a code point).
constexpr std::uint32_t kByte = 0x80000000u;

struct Unit {
  std::size_t begin, end;
  std::uint32_t value;
};

// The length of the well-formed UTF-8 sequence starting at text[i], or 0.
// Written from the table of well-formed byte sequences (Unicode 15, table
// 3-7), byte ranges instead of decoding and range-checking the value.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  auto at = [&](std::size_t k) -> int {
    // Safety: unsigned view of one byte; -1 past the end.
    return i + k < text.size() ? static_cast<std::uint8_t>(text[i + k]) : -1;
  };
  auto cont = [&](std::size_t k, int lo = 0x80, int hi = 0xBF) {
    return at(k) >= lo && at(k) <= hi;
  };
  const int b = at(0);
  if (b <= 0x7F) return 1;
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (b == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// The text cut into units from the left, greedily, as docs/match.md defines.
std::vector<Unit> units(std::string_view text) {
  std::vector<Unit> out;
  for (std::size_t i = 0; i < text.size();) {
    // Safety: unsigned view of one byte.
    const auto lead = static_cast<std::uint8_t>(text[i]);
    const std::size_t n = sequence_length(text, i);
    if (n == 0) {
      out.push_back({i, i + 1, kByte | lead});
      ++i;
      continue;
    }
    // The payload bits: 7 of a one-byte sequence, else the lead's low bits
    // (5, 4 or 3) and 6 per continuation byte.
    std::uint32_t cp = n == 1 ? lead : lead & (0xFFu >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
      // Safety: unsigned view of one byte.
      cp = cp << 6 | (static_cast<std::uint8_t>(text[i + k]) & 0x3Fu);
    }
    out.push_back({i, i + n, cp});
    i += n;
  }
  return out;
}

std::uint32_t fold_unit(std::uint32_t v) {
  auto it = std::lower_bound(kFold.begin(), kFold.end(), v,
                             [](const auto& pair, std::uint32_t cp) { return pair.first < cp; });
  return it != kFold.end() && it->first == v ? it->second : v;
}

bool is_word(std::uint32_t v) {
  return (v & kByte) == 0 && detail::is_word_cp(v);
}

// Whole word: the unit that ends where the match starts and the unit that
// starts where it ends are not word characters; the text's edges are
// boundaries. A match edge that falls inside a unit (possible without
// Unicode folding) has no unit on that side. Indexed by byte offset.
struct WordEdges {
  std::vector<bool> word_ends_at, word_starts_at;  // size text + 1
  explicit WordEdges(std::size_t size, const std::vector<Unit>& us)
      : word_ends_at(size + 1, false), word_starts_at(size + 1, false) {
    for (const Unit& u : us) {
      word_ends_at[u.end] = is_word(u.value);
      word_starts_at[u.begin] = is_word(u.value);
    }
  }
  bool whole(std::size_t start, std::size_t end) const {
    return !word_ends_at[start] && !word_starts_at[end];
  }
};

std::uint8_t ascii_lower(std::uint8_t b) {
  return b >= 'A' && b <= 'Z' ? static_cast<std::uint8_t>(b - 'A' + 'a') : b;
}

bool bytes_equal(std::string_view text, std::size_t at, std::string_view key, bool ascii) {
  if (text.size() - at < key.size()) return false;
  for (std::size_t k = 0; k < key.size(); ++k) {
    // Safety: unsigned views of single bytes.
    auto a = static_cast<std::uint8_t>(text[at + k]);
    auto b = static_cast<std::uint8_t>(key[k]);
    if (ascii) a = ascii_lower(a), b = ascii_lower(b);
    if (a != b) return false;
  }
  return true;
}

std::u32string folded(const std::vector<Unit>& us) {
  std::u32string out;
  for (const Unit& u : us) out.push_back(fold_unit(u.value));
  return out;
}

}  // namespace

std::uint32_t naive_fold(std::uint32_t cp) {
  return fold_unit(cp);
}

NaiveMatcher::NaiveMatcher(std::vector<std::string> keywords, Options options)
    : keywords_(std::move(keywords)), options_(options) {
  if (options_.fold == CaseFold::Unicode) {
    for (const auto& k : keywords_) folded_units_.push_back(folded(units(k)));
  }
}

std::vector<Match> NaiveMatcher::find(std::string_view text) const {
  // (match, length used for ordering)
  std::vector<std::pair<Match, std::size_t>> all;
  const std::vector<Unit> us = units(text);
  if (options_.fold == CaseFold::Unicode) {
    const std::u32string t = folded(us);
    for (std::size_t i = 0; i < t.size(); ++i) {
      for (std::uint32_t id = 0; id < keywords_.size(); ++id) {
        const auto& k = folded_units_[id];
        if (k.empty()) continue;  // refused by the engines' limits
        if (t.size() - i >= k.size() && t.compare(i, k.size(), k) == 0) {
          all.push_back({Match{PatternID{id}, us[i].begin, us[i + k.size() - 1].end}, k.size()});
        }
      }
    }
  } else {
    const bool ascii = options_.fold == CaseFold::Ascii;
    for (std::size_t i = 0; i < text.size(); ++i) {
      for (std::uint32_t id = 0; id < keywords_.size(); ++id) {
        if (bytes_equal(text, i, keywords_[id], ascii)) {
          all.push_back({Match{PatternID{id}, i, i + keywords_[id].size()}, keywords_[id].size()});
        }
      }
    }
  }
  if (options_.whole_word) {
    const WordEdges edges(text.size(), us);
    std::erase_if(all, [&](const auto& m) { return !edges.whole(m.first.start, m.first.end); });
  }
  std::vector<Match> out;
  if (options_.kind == MatchKind::Overlapping) {
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return std::tuple(a.first.end, b.second, a.first.pattern) <
             std::tuple(b.first.end, a.second, b.first.pattern);
    });
    for (const auto& m : all) out.push_back(m.first);
    return out;
  }
  const bool longest = options_.kind == MatchKind::LeftmostLongest;
  std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
    if (a.first.start != b.first.start) return a.first.start < b.first.start;
    if (longest && a.second != b.second) return a.second > b.second;
    return a.first.pattern < b.first.pattern;
  });
  std::size_t pos = 0;
  for (const auto& m : all) {
    if (m.first.start < pos) continue;
    out.push_back(m.first);
    pos = m.first.end;
  }
  return out;
}

}  // namespace herald::match
