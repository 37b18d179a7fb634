// The text that moderation reads in a publication: every string of its
// data, object keys as well as values, in document order (a key before its
// value). Keys are text too: a client chooses them, and a recipient that
// shows an object shows its keys ({"<banned word>":1} once passed
// unmoderated). The strings (here "values", keys included) are joined into
// one buffer, each followed by a NUL byte, so that one search covers the
// whole publication; a match that spans a separator would join two strings
// and is dropped by the caller (TextFields::segment_of tells).
//
// Masking rewrites the data with the masked strings and everything else as
// it was (numbers, literals, structure; the data is compact JSON already).
// Keys and values are unescaped alike for the search and escaped alike on
// the way out (json::append_string), so a masked key is a valid JSON string.
// Two keys of one object may mask to the same text ({"darn":1,"heck":2}
// becomes {"****":1,"****":2}): both members are kept, in order. That is
// still JSON (RFC 8259 4: names SHOULD be unique, not MUST), and what a
// recipient's parser makes of it is its own rule (JavaScript's JSON.parse
// keeps the last); renaming one would invent a key no one sent.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace herald::gateway::moderation {

class TextFields {
 public:
  // Parses `data_json` (valid JSON: the command parser and the API made it)
  // and gathers its strings, keys and values; refused, with the parser's
  // message, if it is not JSON.
  herald::Result<void, std::string> collect(std::string_view data_json);

  // The joined values: value 0, NUL, value 1, NUL, ...
  [[nodiscard]] std::string_view joined() const { return joined_; }
  [[nodiscard]] std::size_t size() const { return starts_.size(); }
  // The value holding joined byte `pos`; size() when `pos` is a separator.
  [[nodiscard]] std::size_t segment_of(std::size_t pos) const;
  // True when [start, end) lies inside one value.
  [[nodiscard]] bool within_one_value(std::size_t start, std::size_t end) const;

  // The data with the joined bytes in each [start, end) of `spans` (sorted,
  // disjoint, each within one value or key) replaced by one '*' per code
  // point.
  [[nodiscard]] std::string masked_json(
      const std::vector<std::pair<std::size_t, std::size_t>>& spans);

 private:
  void gather(simdjson::dom::element e);
  void add(std::string_view text);  // one more segment
  void write(std::string& out, simdjson::dom::element e, std::size_t& next_value,
             const std::vector<std::string>& values) const;

  simdjson::dom::parser parser_;
  simdjson::dom::element root_;
  std::string joined_;
  std::vector<std::size_t> starts_;  // where each value starts in joined_
};

}  // namespace herald::gateway::moderation
