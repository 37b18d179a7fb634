// Fuzz target: moderation's view of a publication (gateway/moderation/
// text_fields). Any bytes are parsed as data; for JSON, the string values
// are masked in spans drawn from the input's own bytes. The rewrite must be
// valid JSON with the same number of string values, and masking every value
// whole must leave only '*' in them.
#include <simdjson.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gateway/moderation/text_fields.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using herald::gateway::moderation::TextFields;
  static TextFields fields;
  static simdjson::dom::parser check;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  if (!fields.collect(text, error)) {
    if (error.empty()) std::abort();
    return 0;
  }
  // Spans: each value whole (within_one_value must hold for each).
  std::vector<std::pair<std::size_t, std::size_t>> spans;
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
  std::size_t values = fields.size();
  std::string masked = fields.masked_json(spans);
  simdjson::dom::element root;
  if (check.parse(masked).get(root) != simdjson::SUCCESS) std::abort();
  // Collecting again sees the same number of values, now only stars.
  if (!fields.collect(masked, error) || fields.size() != values) std::abort();
  for (char c : fields.joined())
    if (c != '*' && c != '\0') std::abort();
  return 0;
}
