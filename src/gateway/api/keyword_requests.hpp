// The JSON bodies of the keyword API (docs/protocol.md, "Keyword
// dictionaries"), parsed with simdjson. Each parser returns what is wrong
// and where ("keywords[2].action: expected one of reject, mask, flag"), or
// nullopt. fuzz/keyword_requests.cpp fuzzes all three.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "match/store/entry.hpp"

namespace herald::gateway {

// {"keywords": ["spam", {"keyword": "scam", "action": "reject", "category": "fraud"}]}
// A bare string is {"keyword": it, "action": "flag", "category": ""}.
[[nodiscard]] std::optional<std::string> parse_keyword_add(std::string_view body,
                                                           std::vector<match::store::Entry>& out);
// {"keywords": ["spam", "scam"]}
[[nodiscard]] std::optional<std::string> parse_keyword_remove(std::string_view body,
                                                              std::vector<std::string>& out);
// {"text": "..."}
[[nodiscard]] std::optional<std::string> parse_keyword_match(std::string_view body,
                                                             std::string& text);

}  // namespace herald::gateway
