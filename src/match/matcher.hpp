// herald::match: Aho-Corasick keyword search over UTF-8 (or any) bytes.
//
//   auto m = Matcher::try_build(keywords, {.kind = MatchKind::LeftmostLongest,
//                                          .fold = CaseFold::Unicode});
//   if (!m) ...m.error()...
//   std::vector<Match> out;            // reuse across calls: no allocation
//   m->find(text, out);                // when nothing matches (pinned by test)
//
// Semantics of each call are stated exactly in docs/match.md; the design
// (trie -> NFA with failure links -> contiguous NFA -> DFA) is taught there.
// A Matcher is immutable after build and safe to share between threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "match/ids.hpp"
#include "match/options.hpp"

namespace herald::match {

// A match: keyword `pattern` at text bytes [start, end).
struct Match {
  PatternID pattern;
  std::size_t start = 0;
  std::size_t end = 0;
  friend bool operator==(const Match&, const Match&) = default;
};

// A match with its keyword and code-point offsets. Code-point offset of a
// byte offset o: the number of units (utf8.hpp: a well-formed sequence, or a
// lone invalid byte) that start before o. For valid UTF-8 this is the number
// of code points before o.
struct MatchDetail {
  PatternID pattern;
  std::string_view keyword;  // as given to the builder; lives as long as the Matcher
  std::size_t start = 0;
  std::size_t end = 0;
  std::size_t cp_start = 0;
  std::size_t cp_end = 0;
};

struct Stats {
  Preset preset = Preset::Auto;  // the preset actually built
  std::size_t states = 0;
  std::size_t byte_classes = 0;
  std::size_t sparse_states = 0;  // Speed: states with a sparse row (dense_table_bytes)
  std::size_t memory_bytes = 0;   // the searching automaton and pattern tables
  std::chrono::nanoseconds build_time{0};
};

class Matcher;

// A value or an Error (core/result.hpp: the convention every module shares).
template <class T>
using Result = herald::Result<T, Error>;

namespace detail {
struct Engine;  // the built automaton and pattern tables (matcher.cpp)
}

class Matcher {
 public:
  // Fallible build: kEmptyKeyword, kKeywordTooLong, kTooManyKeywords,
  // kDictionaryTooLarge, kInvalidUtf8Keyword (Unicode folding only),
  // kAutomatonTooLarge (Speed only; Auto falls back to Balanced).
  [[nodiscard]] static Result<Matcher> try_build(std::span<const std::string_view> keywords,
                                                 Options options = {});
  [[nodiscard]] static Result<Matcher> try_build(std::span<const std::string> keywords,
                                                 Options options = {});
  // Asserting build for configuration time: throws std::invalid_argument.
  [[nodiscard]] static Matcher build(std::span<const std::string> keywords, Options options = {});

  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // Every match by the configured kind, in order (overlapping: end, longest
  // first, id; leftmost: by start). `out` is cleared first; its capacity is
  // reused, and nothing is allocated when there is no match.
  void find(std::string_view text, std::vector<Match>& out) const;
  [[nodiscard]] std::vector<Match> find(std::string_view text) const;

  // Each keyword once, in order of its first appearance in find's output.
  void find_set(std::string_view text, std::vector<PatternID>& out) const;
  // find's matches with keyword and code-point offsets.
  void find_matches(std::string_view text, std::vector<MatchDetail>& out) const;
  // Whether find would return anything; stops at the first occurrence.
  [[nodiscard]] bool contains(std::string_view text) const;
  // find over each text.
  [[nodiscard]] std::vector<std::vector<Match>> find_many(
      std::span<const std::string_view> texts) const;
  // Identical to find, computed on `threads` chunks in parallel (chunks of
  // at least min_chunk bytes; smaller texts run on the calling thread).
  [[nodiscard]] std::vector<Match> find_parallel(std::string_view text, unsigned threads,
                                                 std::size_t min_chunk = 64 * 1024) const;
  // The text with each matched code point replaced by `mask_with` (mask) or
  // each matched span replaced by `with` (replace). Overlapping matches are
  // merged into one span first.
  [[nodiscard]] std::string mask(std::string_view text, std::string_view mask_with = "*") const;
  [[nodiscard]] std::string replace(std::string_view text, std::string_view with) const;
  // Keywords whose folded form starts with the folded prefix, by folded
  // keyword then id, at most `limit`.
  [[nodiscard]] std::vector<PatternID> suggest(std::string_view prefix,
                                               std::size_t limit = 10) const;

  [[nodiscard]] std::string_view keyword(PatternID id) const;
  [[nodiscard]] std::size_t keyword_count() const;
  [[nodiscard]] const Options& options() const;
  [[nodiscard]] Stats stats() const;

  // Largest text span (bytes) of any match: the overlap chunked searches need.
  [[nodiscard]] std::size_t max_match_bytes() const;

 private:
  friend class StreamSearcher;
  explicit Matcher(std::unique_ptr<detail::Engine> engine);
  // The leftmost match at or after `from` (a unit start), if any.
  bool leftmost_at(std::string_view text, std::size_t from, Match& out) const;
  // Appends the occurrences ending in (max(from, min_end), to], scanning
  // from `from` (a unit start).
  void overlapping_into(std::string_view text, std::size_t from, std::size_t to,
                        std::size_t min_end, std::vector<Match>& out) const;
  // Whether a search of `bytes` bytes runs in interleaved lanes (given a
  // DFA of either kind: the callers check), and find's leftmost search in
  // lanes (the leftmost automaton).
  [[nodiscard]] bool lanes_pay(std::size_t bytes) const;
  void leftmost_lanes_into(std::string_view text, std::vector<Match>& out) const;
  // Leftmost kinds, searching in chunks: `out` holds find's matches that
  // start before chunk_start, and `part` the chain of searches begun at
  // chunk_start, up to its first match starting at or after chunk_end.
  // Appends find's matches that start before chunk_end (parallel.cpp).
  void append_chunk_chain(std::string_view text, std::size_t chunk_start, std::size_t chunk_end,
                          std::span<const Match> part, std::vector<Match>& out) const;
  // The first unit start at or after i (i itself unless Unicode folding).
  [[nodiscard]] std::size_t align(std::string_view text, std::size_t i) const;
  std::unique_ptr<detail::Engine> e_;
};

// Search over a sequence of chunks (a socket, a file read piecewise) with the
// same results as find over their concatenation, offsets absolute. Matches
// are emitted once they are final: at most max_match_bytes() + 4 bytes after
// they end, and at finish().
class StreamSearcher {
 public:
  explicit StreamSearcher(const Matcher& m) : m_(m) {}
  // Appends the matches that became final to `out`.
  void feed(std::string_view chunk, std::vector<Match>& out);
  void finish(std::vector<Match>& out);

 private:
  void run(bool eof, std::vector<Match>& out);
  const Matcher& m_;
  std::string window_;      // the bytes kept from earlier chunks, then the new one
  std::size_t base_ = 0;    // absolute offset of window_[0]
  std::size_t done_ = 0;    // overlapping: every match ending <= done_ is emitted
  std::size_t resume_ = 0;  // leftmost: the next search starts here
};

// Reads chunks from `read(buffer) -> bytes read (0 at end)` into a buffer of
// chunk_size bytes and returns find's matches over the whole stream.
template <class Reader>
std::vector<Match> find_stream(const Matcher& m, Reader&& read, std::size_t chunk_size = 65536) {
  StreamSearcher s(m);
  std::vector<Match> out;
  std::string buffer(chunk_size, '\0');
  for (;;) {
    const std::size_t n = read(std::span<char>(buffer.data(), buffer.size()));
    if (n == 0) break;
    s.feed(std::string_view(buffer.data(), n), out);
  }
  s.finish(out);
  return out;
}

}  // namespace herald::match
