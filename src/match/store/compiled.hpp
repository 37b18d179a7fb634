// One dictionary compiled for searching: its version, its entries and the
// Matcher built from them. Immutable once built, so any number of threads
// search one Compiled at once; a newer version is a new Compiled, swapped in
// whole (engine_table.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "match/matcher.hpp"
#include "match/store/entry.hpp"

namespace herald::match::store {

// A keyword found in a text: bytes [start, end), with its metadata.
struct Hit {
  std::string_view keyword;  // lives as long as the Compiled it came from
  Action action = Action::flag;
  std::string_view category;
  std::size_t start = 0;
  std::size_t end = 0;
};

// Every dictionary is searched the same way: leftmost-longest, Unicode case
// folding (so "Spam" finds "spam"), any position (not whole words).
// Moderation may build an engine of its own with other options (case
// sensitive, whole words) from the same entries.
[[nodiscard]] Options search_options();

class Compiled {
 public:
  // Builds the engine, or says why not (a keyword the engine refuses, e.g.
  // written to Redis by another tool). Entries with the same keyword keep
  // the first; `options.kind` must be a leftmost kind (hits are disjoint).
  [[nodiscard]] static herald::Result<std::shared_ptr<const Compiled>, std::string> build(
      std::uint64_t version, std::vector<Entry> entries, const Options& options = search_options());

  [[nodiscard]] std::uint64_t version() const { return version_; }
  // Sorted by keyword, one per keyword; pattern id i is entries()[i].
  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }
  // `out` is cleared first.
  void find(std::string_view text, std::vector<Hit>& out) const;
  [[nodiscard]] std::string mask(std::string_view text) const;

 private:
  Compiled(std::uint64_t version, std::vector<Entry> entries, Matcher matcher);
  std::uint64_t version_;
  std::vector<Entry> entries_;
  Matcher matcher_;
};

}  // namespace herald::match::store
