// Fuzz target: moderation's view of a publication (gateway/moderation/
// text_fields). Any bytes are parsed as data; for JSON, its strings (object
// keys and string values) are searched with a fixed dictionary the way the
// Moderator searches them, and the hits masked. Invariants:
//  - the rewrite is valid JSON with the same number of strings;
//  - searching the rewrite again finds no keyword in any key or value
//    (masking is complete: one pass leaves nothing, and a '*' never starts
//    a new match, since no keyword holds one);
//  - masking every string whole leaves only '*' in keys and values.
#include <simdjson.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/moderation/text_fields.hpp"
#include "match/store/compiled.hpp"

namespace {

using herald::gateway::moderation::TextFields;
using herald::match::store::Compiled;
using herald::match::store::Hit;
using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// Words that the seed corpus holds as keys and values, with a non-ASCII one
// and one whose case folds (Unicode folding, as in production).
const Compiled& dictionary() {
  static const std::shared_ptr<const Compiled> engine = [] {
    auto c = Compiled::build(1, {{"darn"}, {"heck"}, {"é"}, {"바보"}, {"key"}});
    if (!c) std::abort();
    return *c;
  }();
  return *engine;
}

// The hits of the dictionary inside one string each, as the Moderator keeps them.
Spans hits_within_strings(const TextFields& fields) {
  thread_local std::vector<Hit> hits;
  dictionary().find(fields.joined(), hits);
  Spans spans;
  for (const Hit& h : hits)
    if (fields.within_one_value(h.start, h.end)) spans.emplace_back(h.start, h.end);
  return spans;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static TextFields fields;
  static simdjson::dom::parser check;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto parsed = fields.collect(text); !parsed) {
    if (parsed.error().empty()) std::abort();
    return 0;
  }
  const std::size_t strings = fields.size();
  simdjson::dom::element root;

  // Moderation's masking: valid JSON, and nothing left to find.
  const std::string moderated = fields.masked_json(hits_within_strings(fields));
  if (check.parse(moderated).get(root) != simdjson::SUCCESS) std::abort();
  if (!fields.collect(moderated) || fields.size() != strings) std::abort();
  if (!hits_within_strings(fields).empty()) std::abort();

  // Every string masked whole (within_one_value must hold for each).
  if (!fields.collect(text)) std::abort();
  Spans spans;
  std::string_view joined = fields.joined();
  std::size_t start = 0;
  for (std::size_t i = 0; i < joined.size(); ++i) {
    if (fields.segment_of(i) != fields.size()) continue;  // not a separator
    if (i > start) {
      if (!fields.within_one_value(start, i)) std::abort();
      spans.emplace_back(start, i);
    }
    start = i + 1;
  }
  const std::string masked = fields.masked_json(spans);
  if (check.parse(masked).get(root) != simdjson::SUCCESS) std::abort();
  // Collecting again sees the same number of strings, now only stars.
  if (!fields.collect(masked) || fields.size() != strings) std::abort();
  for (char c : fields.joined())
    if (c != '*' && c != '\0') std::abort();
  return 0;
}
