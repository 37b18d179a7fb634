// Building: validate and fold the keywords, build the trie with failure links
// (detail/noncontiguous), compile it into the preset's automaton, and keep a
// sorted copy of the folded keywords for suggest(). Searching: dispatch once
// per call to the automaton type, then run the loops of detail/search.hpp.
#include "match/matcher.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <variant>

#include "match/detail/casefold.hpp"
#include "match/detail/contiguous.hpp"
#include "match/detail/dfa.hpp"
#include "match/detail/hybrid_dfa.hpp"
#include "match/detail/leftmost_dfa.hpp"
#include "match/detail/leftmost_search.hpp"
#include "match/detail/noncontiguous.hpp"
#include "match/detail/search.hpp"
#include "match/detail/utf8.hpp"

namespace herald::match {

std::string_view error_message(Error e) {
  switch (e) {
    case Error::kOk:
      return "ok";
    case Error::kEmptyKeyword:
      return "empty keyword";
    case Error::kKeywordTooLong:
      return "keyword longer than 256 bytes";
    case Error::kTooManyKeywords:
      return "more than 1,000,000 keywords";
    case Error::kDictionaryTooLarge:
      return "dictionary larger than 64 MiB";
    case Error::kInvalidUtf8Keyword:
      return "keyword is not valid UTF-8 (required by Unicode folding)";
    case Error::kAutomatonTooLarge:
      return "DFA would exceed 2^31 table entries; use Balanced";
  }
  return "unknown error";
}

namespace detail {

struct Engine {
  Options options;
  std::vector<std::string> keywords;
  std::vector<PatternInfo> patterns;
  std::vector<std::pair<std::string, PatternID>> sorted;  // folded keywords, for suggest
  // Speed: DFA, or HybridDFA past Options::dense_table_bytes; for a leftmost
  // kind in byte mode without whole words, the leftmost automaton over
  // either table, which answers leftmost_at and contains. The others run
  // the generic scans.
  std::variant<DFA, HybridDFA, ContiguousNFA, LeftmostDFA, LeftmostHybridDFA> automaton;
  ScanSpec spec{};
  std::size_t max_match_bytes = 0;
  Stats stats;
  StartPrefilter prefilter;
};

namespace {

// Folds one keyword or prefix the way the scan folds text. Returns false if
// Unicode folding meets invalid UTF-8 (allowed for prefixes: lone bytes kept).
bool fold_into(std::string_view in, CaseFold fold, std::string& out, std::uint32_t& units) {
  out.clear();
  units = 0;
  bool valid = true;
  if (fold != CaseFold::Unicode) {
    for (const char c : in) {
      // Safety: unsigned view of one byte.
      const auto b = static_cast<std::uint8_t>(c);
      out.push_back(static_cast<char>(fold == CaseFold::Ascii ? fold_ascii(b) : b));
    }
    units = static_cast<std::uint32_t>(in.size());
    return true;
  }
  std::uint8_t buf[4];
  for (std::size_t i = 0; i < in.size();) {
    const Unit u = decode(in, i);
    ++units;
    if (u.cp == kInvalid) {
      valid = false;
      out.push_back(in[i]);
    } else {
      const std::uint32_t n = encode(fold_simple(u.cp), buf);
      // Safety: the encoded bytes stored back as chars.
      out.append(reinterpret_cast<const char*>(buf), n);
    }
    i += u.len;
  }
  return valid;
}

Preset choose(Preset p, std::size_t keywords) {
  if (p != Preset::Auto) return p;
  // DFA tables grow with states x classes; past ~10,000 keywords the table
  // no longer fits in cache and its build time dominates small workloads.
  if (keywords <= 10'000) return Preset::Speed;
  if (keywords <= 200'000) return Preset::Balanced;
  return Preset::MemoryEfficient;
}

// Matcher::overlapping_into in interleaved lanes (DFAs only: lanes_pay).
// Lane 0 writes to out; the others to per-thread scratch, appended in lane
// order after each block (lanes own consecutive ranges of ends).
template <class A>
void overlapping_lanes_into(const Engine& e, const A& a, std::string_view text, std::size_t from,
                            std::size_t to, std::size_t min_end, std::vector<Match>& out) {
  thread_local std::array<std::vector<Match>, kWideLanes - 1> scratch;
  LaneLoopChoice loop(e.stats.memory_bytes);
  for (std::size_t b = from; b < to;) {
    const std::size_t end = to - b < 2 * kLanesBlockBytes ? to : b + kLanesBlockBytes;
    std::size_t found = 0;
    const auto sink = [&](std::size_t lane, const Found& f) {
      ++found;
      if (f.end <= min_end) return;
      auto& dst = lane == 0 ? out : scratch[lane - 1];
      dst.push_back(Match{f.pattern, f.start, f.end});
    };
    loop.run([&]<LaneLoop kLoop, std::size_t kLaneCount>() {
      scan_overlapping_lanes<kLoop, kLaneCount>(a, e.spec, text, from, b, end, e.max_match_bytes,
                                                sink);
    });
    loop.after(found, end - b);
    for (auto& v : scratch) {
      out.insert(out.end(), v.begin(), v.end());
      v.clear();
    }
    b = end;
  }
  // Do not hoard a pathological block's memory in every searching thread.
  for (auto& v : scratch) {
    if (v.capacity() > (1u << 16)) std::vector<Match>().swap(v);
  }
}

}  // namespace
}  // namespace detail

Matcher::Matcher(std::unique_ptr<detail::Engine> engine) : e_(std::move(engine)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

Result<Matcher> Matcher::try_build(std::span<const std::string> keywords, Options options) {
  std::vector<std::string_view> views(keywords.begin(), keywords.end());
  return try_build(std::span<const std::string_view>(views), options);
}

Result<Matcher> Matcher::try_build(std::span<const std::string_view> keywords, Options options) {
  using namespace detail;
  const auto t0 = std::chrono::steady_clock::now();
  if (keywords.size() > kMaxKeywords) return Error::kTooManyKeywords;
  std::size_t total = 0;
  std::vector<std::string> folded(keywords.size());
  std::vector<std::string> originals;
  originals.reserve(keywords.size());
  std::vector<PatternInfo> patterns(keywords.size());
  std::uint32_t max_units = 0;
  std::uint32_t max_bytes = 0;
  for (std::size_t i = 0; i < keywords.size(); ++i) {
    const std::string_view k = keywords[i];
    if (k.empty()) return Error::kEmptyKeyword;
    if (k.size() > kMaxKeywordBytes) return Error::kKeywordTooLong;
    total += k.size();
    if (total > kMaxDictionaryBytes) return Error::kDictionaryTooLarge;
    std::uint32_t units = 0;
    if (!fold_into(k, options.fold, folded[i], units)) return Error::kInvalidUtf8Keyword;
    originals.emplace_back(k);
    patterns[i] = PatternInfo{static_cast<std::uint32_t>(folded[i].size()), units};
    max_units = std::max(max_units, units);
    max_bytes = std::max(max_bytes, static_cast<std::uint32_t>(k.size()));
  }
  // In Unicode mode a match spans as many units as its keyword, each at most
  // 4 bytes of text; otherwise exactly the keyword's bytes.
  const std::size_t max_match = options.fold == CaseFold::Unicode ? 4u * max_units : max_bytes;

  const ByteClasses classes = make_byte_classes(folded, options.fold != CaseFold::None);
  Preset preset = choose(options.preset, keywords.size());
  std::optional<std::variant<DFA, HybridDFA, ContiguousNFA, LeftmostDFA, LeftmostHybridDFA>>
      automaton;
  if (preset == Preset::Speed) {
    const bool leftmost = options.kind != MatchKind::Overlapping &&
                          options.fold != CaseFold::Unicode && !options.whole_word;
    const NoncontiguousNFA nfa =
        leftmost ? leftmost_nfa(folded, options.kind) : NoncontiguousNFA(folded);
    // Either table, alone or under the leftmost automaton.
    const auto keep = [&]<class Table>(Table table) {
      if (!table.ok()) return;
      if (leftmost) {
        automaton.emplace(LeftmostAutomaton<Table>(std::move(table), folded));
      } else {
        automaton.emplace(std::move(table));
      }
    };
    // Rows of the flat table, the dead state's included.
    const std::uint64_t rows = nfa.states().size() + (nfa.leftmost() ? 1 : 0);
    if (DFA::table_bytes(rows, classes.count) > options.dense_table_bytes) {
      keep(HybridDFA(nfa, classes, options.dense_table_bytes));
    } else {
      keep(DFA(nfa, classes));
    }
    if (!automaton) {
      if (options.preset == Preset::Speed) return Error::kAutomatonTooLarge;
      preset = Preset::Balanced;
    }
  }
  if (!automaton) {
    automaton.emplace(
        ContiguousNFA(NoncontiguousNFA(folded), classes, preset == Preset::Balanced ? 2 : 0));
  }
  auto e = std::unique_ptr<Engine>(
      new Engine{.options = options,
                 .keywords = std::move(originals),
                 .patterns = std::move(patterns),
                 .sorted = {},  // the rest is filled in below, once the Engine's address is fixed
                 .automaton = std::move(*automaton),
                 .spec = {},
                 .max_match_bytes = max_match,
                 .stats = {},
                 .prefilter = {}});
  std::vector<std::string> first_bytes;
  first_bytes.reserve(folded.size());
  for (const auto& f : folded) first_bytes.push_back(f.substr(0, 1));
  e->sorted.reserve(keywords.size());
  for (std::uint32_t i = 0; i < folded.size(); ++i) {
    e->sorted.emplace_back(std::move(folded[i]), PatternID{i});
  }
  std::sort(e->sorted.begin(), e->sorted.end());
  if (options.fold != CaseFold::Unicode) {
    e->prefilter = StartPrefilter(first_bytes, options.fold == CaseFold::Ascii);
  }
  e->spec = ScanSpec{&e->patterns, options.kind, options.fold == CaseFold::Unicode,
                     options.whole_word, &e->prefilter};
  e->stats.preset = preset;
  std::visit(
      [&]<class A>(const A& a) {
        e->stats.states = a.state_count();
        e->stats.memory_bytes = a.memory_bytes();
        if constexpr (std::is_same_v<A, HybridDFA>) {
          e->stats.sparse_states = a.state_count() - a.dense_state_count();
        } else if constexpr (std::is_same_v<A, LeftmostHybridDFA>) {
          e->stats.sparse_states = a.state_count() - a.table().dense_state_count();
        }
      },
      e->automaton);
  e->stats.byte_classes = classes.count;
  e->stats.memory_bytes += e->patterns.capacity() * sizeof(PatternInfo);
  e->stats.build_time = std::chrono::steady_clock::now() - t0;
  return Matcher(std::move(e));
}

Matcher Matcher::build(std::span<const std::string> keywords, Options options) {
  auto r = try_build(keywords, options);
  if (!r) throw std::invalid_argument(std::string(error_message(r.error())));
  return std::move(*r);
}

std::string_view Matcher::keyword(PatternID id) const {
  return e_->keywords[id.value];
}
std::size_t Matcher::keyword_count() const {
  return e_->keywords.size();
}
const Options& Matcher::options() const {
  return e_->options;
}
Stats Matcher::stats() const {
  return e_->stats;
}
std::size_t Matcher::max_match_bytes() const {
  return e_->max_match_bytes;
}

std::size_t Matcher::align(std::string_view text, std::size_t i) const {
  if (!e_->spec.unicode) return i;
  while (i < text.size() && !detail::is_unit_start(text, i)) ++i;
  return i;
}

bool Matcher::leftmost_at(std::string_view text, std::size_t from, Match& out) const {
  const auto found = std::visit(
      [&]<class A>(const A& a) {
        if constexpr (detail::kIsLeftmostAutomaton<A>) {
          return detail::leftmost_find_at(a, e_->spec, text, from);
        } else {
          return detail::leftmost_at(a, e_->spec, text, from);
        }
      },
      e_->automaton);
  if (!found) return false;
  out = Match{found->pattern, found->start, found->end};
  return true;
}

void Matcher::overlapping_into(std::string_view text, std::size_t from, std::size_t to,
                               std::size_t min_end, std::vector<Match>& out) const {
  std::visit(
      [&]<class A>(const A& a) {
        // Built only for the leftmost kinds, which never scan overlapping.
        if constexpr (!detail::kIsLeftmostAutomaton<A>) {
          constexpr bool kDfa =
              std::is_same_v<A, detail::DFA> || std::is_same_v<A, detail::HybridDFA>;
          if constexpr (kDfa) {
            if (lanes_pay(to - from)) {
              detail::overlapping_lanes_into(*e_, a, text, from, to, min_end, out);
              return;
            }
          }
          detail::scan_overlapping(a, e_->spec, text, from, to, [&](const detail::Found& f) {
            if (f.end > min_end) out.push_back(Match{f.pattern, f.start, f.end});
            return true;
          });
        }
      },
      e_->automaton);
}

bool Matcher::lanes_pay(std::size_t bytes) const {
  // Lanes pay when the walk is bound by table loads: a DFA's (one load a
  // step; the NFAs branch: the callers check the automaton), not in Unicode
  // mode (decoding dominates), not when the start-byte prefilter skips most
  // of the text, not on short texts.
  return e_->options.interleave && !e_->spec.unicode && !e_->prefilter.enabled() &&
         bytes >= std::max(detail::kLanesMinBytes, 16 * e_->max_match_bytes);
}

void Matcher::leftmost_lanes_into(std::string_view text, std::vector<Match>& out) const {
  // Lane 0 starts where find's chain stands, so its matches are find's and
  // go straight to out; the others write to per-thread scratch, stitched in
  // after each block. Blocks keep the scratch at one block's matches.
  thread_local std::array<std::vector<Match>, detail::kWideLanes - 1> scratch;
  const std::size_t n = text.size();
  const auto lanes = [&]<class A>(const A& a) {
    if constexpr (detail::kIsLeftmostAutomaton<A>) {
      detail::LaneLoopChoice loop(e_->stats.memory_bytes);
      for (std::size_t b = 0; b < n;) {
        const std::size_t e =
            n - b < 2 * detail::kLanesBlockBytes ? n : b + detail::kLanesBlockBytes;
        std::size_t found = 0;
        const auto sink = [&](std::size_t lane, const detail::Found& f) {
          auto& dst = lane == 0 ? out : scratch[lane - 1];
          dst.push_back(Match{f.pattern, f.start, f.end});
          ++found;
        };
        loop.run([&]<detail::LaneLoop kLoop, std::size_t kLaneCount>() {
          std::array<std::size_t, kLaneCount + 1> cut;
          for (std::size_t k = 0; k <= kLaneCount; ++k) cut[k] = b + (e - b) * k / kLaneCount;
          detail::leftmost_lanes<kLoop, kLaneCount>(a, text, cut, sink);
          for (std::size_t k = 1; k < kLaneCount; ++k) {
            append_chunk_chain(text, cut[k], cut[k + 1], scratch[k - 1], out);
            scratch[k - 1].clear();
          }
        });
        loop.after(found, e - b);
        // find's chain holds every match that starts before e; it goes on
        // from the last one's end, or from e (nothing starts in between).
        b = std::max(e, out.empty() ? 0 : out.back().end);
      }
    }
  };
  std::visit(lanes, e_->automaton);
  // Do not hoard a pathological block's memory in every searching thread.
  for (auto& v : scratch) {
    if (v.capacity() > (1u << 16)) std::vector<Match>().swap(v);
  }
}

void Matcher::find(std::string_view text, std::vector<Match>& out) const {
  out.clear();
  if (e_->options.kind == MatchKind::Overlapping) {
    overlapping_into(text, 0, text.size(), 0, out);
    return;
  }
  const bool own_leftmost =
      std::visit([]<class A>(const A&) { return detail::kIsLeftmostAutomaton<A>; }, e_->automaton);
  if (own_leftmost && lanes_pay(text.size())) {
    leftmost_lanes_into(text, out);
    return;
  }
  // Each search starts where the previous match ended; a match is never
  // empty, so pos strictly increases and the loop ends.
  std::size_t pos = 0;
  Match m;
  while (pos < text.size() && leftmost_at(text, pos, m)) {
    out.push_back(m);
    pos = m.end;
  }
}

std::vector<Match> Matcher::find(std::string_view text) const {
  std::vector<Match> out;
  find(text, out);
  return out;
}

bool Matcher::contains(std::string_view text) const {
  // Any occurrence means find is non-empty for every kind: the leftmost
  // occurrence is always selected.
  return std::visit(
      [&]<class A>(const A& a) {
        if constexpr (detail::kIsLeftmostAutomaton<A>) {
          // No whole-word filter here: any occurrence gives a leftmost match.
          return detail::leftmost_find_at(a, e_->spec, text, 0).has_value();
        } else {
          return !detail::scan_overlapping(a, e_->spec, text, 0, text.size(),
                                           [](const detail::Found&) { return false; });
        }
      },
      e_->automaton);
}

void Matcher::find_set(std::string_view text, std::vector<PatternID>& out) const {
  out.clear();
  std::vector<Match> matches;
  find(text, matches);
  if (matches.empty()) return;
  std::vector<bool> seen(e_->keywords.size());
  for (const Match& m : matches) {
    if (!seen[m.pattern.value]) {
      seen[m.pattern.value] = true;
      out.push_back(m.pattern);
    }
  }
}

void Matcher::find_matches(std::string_view text, std::vector<MatchDetail>& out) const {
  out.clear();
  std::vector<Match> matches;
  find(text, matches);
  // Ends are non-decreasing in both orders (overlapping: by end; leftmost:
  // disjoint left to right), so one forward cursor counts units to each end;
  // the start's count is the end's minus the units inside the match.
  std::size_t cursor = 0;
  std::size_t units = 0;
  for (const Match& m : matches) {
    units += detail::count_units(text, cursor, m.end);
    cursor = m.end;
    const std::size_t inside = detail::count_units(text, m.start, m.end);
    out.push_back(
        MatchDetail{m.pattern, keyword(m.pattern), m.start, m.end, units - inside, units});
  }
}

std::vector<std::vector<Match>> Matcher::find_many(std::span<const std::string_view> texts) const {
  std::vector<std::vector<Match>> out(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) find(texts[i], out[i]);
  return out;
}

std::vector<PatternID> Matcher::suggest(std::string_view prefix, std::size_t limit) const {
  std::string folded;
  std::uint32_t units = 0;
  (void)detail::fold_into(prefix, e_->options.fold, folded, units);
  std::vector<PatternID> out;
  auto it = std::lower_bound(e_->sorted.begin(), e_->sorted.end(), folded,
                             [](const auto& e, const std::string& p) { return e.first < p; });
  for (; it != e_->sorted.end() && out.size() < limit && it->first.starts_with(folded); ++it) {
    out.push_back(it->second);
  }
  return out;
}

}  // namespace herald::match
