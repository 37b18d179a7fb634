// The text that moderation reads in a publication: every string value of
// its data, in document order (object keys are names, not text). The values
// are joined into one buffer, each followed by a NUL byte, so that one search
// covers the whole publication; a match that spans a separator would join two
// values and is dropped by the caller (TextFields::segment_of tells).
//
// Masking rewrites the data with the masked values and everything else as
// it was (numbers, literals, structure; the data is compact JSON already).
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace herald::gateway::moderation {

class TextFields {
 public:
  // Parses `data_json` (valid JSON: the command parser and the API made it)
  // and gathers its string values. False, with `error`, if it is not JSON.
  bool collect(std::string_view data_json, std::string& error);

  // The joined values: value 0, NUL, value 1, NUL, ...
  [[nodiscard]] std::string_view joined() const { return joined_; }
  [[nodiscard]] std::size_t size() const { return starts_.size(); }
  // The value holding joined byte `pos`; size() when `pos` is a separator.
  [[nodiscard]] std::size_t segment_of(std::size_t pos) const;
  // True when [start, end) lies inside one value.
  [[nodiscard]] bool within_one_value(std::size_t start, std::size_t end) const;

  // The data with the joined bytes in each [start, end) of `spans` (sorted,
  // disjoint, each within one value) replaced by one '*' per code point.
  [[nodiscard]] std::string masked_json(
      const std::vector<std::pair<std::size_t, std::size_t>>& spans);

 private:
  void gather(simdjson::dom::element e);
  void write(std::string& out, simdjson::dom::element e, std::size_t& next_value,
             const std::vector<std::string>& values) const;

  simdjson::dom::parser parser_;
  simdjson::dom::element root_;
  std::string joined_;
  std::vector<std::size_t> starts_;  // where each value starts in joined_
};

}  // namespace herald::gateway::moderation
