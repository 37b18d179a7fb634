#include "match/naive.hpp"

#include <algorithm>
#include <tuple>

#include "match/detail/casefold.hpp"
#include "match/detail/utf8.hpp"
#include "match/detail/word.hpp"

namespace herald::match {
namespace {

// Code units of a folded string: a folded code point, or 0x80000000 | byte
// for a lone invalid byte (never equal to a code point).
std::u32string fold_units(std::string_view s, std::vector<std::size_t>* offsets) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    const detail::Unit u = detail::decode(s, i);
    if (offsets) offsets->push_back(i);
    // Safety: unsigned view of one byte.
    out.push_back(u.cp == detail::kInvalid ? (0x80000000u | static_cast<std::uint8_t>(s[i]))
                                           : detail::fold_simple(u.cp));
    i += u.len;
  }
  if (offsets) offsets->push_back(s.size());
  return out;
}

bool bytes_equal(std::string_view text, std::size_t at, std::string_view key, bool ascii) {
  if (text.size() - at < key.size()) return false;
  for (std::size_t k = 0; k < key.size(); ++k) {
    // Safety: unsigned views of single bytes.
    auto a = static_cast<std::uint8_t>(text[at + k]);
    auto b = static_cast<std::uint8_t>(key[k]);
    if (ascii) a = detail::fold_ascii(a), b = detail::fold_ascii(b);
    if (a != b) return false;
  }
  return true;
}

}  // namespace

NaiveMatcher::NaiveMatcher(std::vector<std::string> keywords, Options options)
    : keywords_(std::move(keywords)), options_(options) {
  if (options_.fold == CaseFold::Unicode) {
    for (const auto& k : keywords_) folded_units_.push_back(fold_units(k, nullptr));
  }
}

std::vector<Match> NaiveMatcher::find(std::string_view text) const {
  // (match, length used for ordering)
  std::vector<std::pair<Match, std::size_t>> all;
  if (options_.fold == CaseFold::Unicode) {
    std::vector<std::size_t> offs;
    const std::u32string t = fold_units(text, &offs);
    for (std::size_t i = 0; i < t.size(); ++i) {
      for (std::uint32_t id = 0; id < keywords_.size(); ++id) {
        const auto& k = folded_units_[id];
        if (t.size() - i >= k.size() && t.compare(i, k.size(), k) == 0) {
          all.push_back({Match{PatternID{id}, offs[i], offs[i + k.size()]}, k.size()});
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
    std::erase_if(all, [&](const auto& m) {
      return !detail::is_whole_word(text, m.first.start, m.first.end);
    });
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
