// The JSON bodies of the keyword API (docs/protocol.md, "Keyword
// dictionaries"), parsed with simdjson. Each parser returns what is wrong
// and where ("keywords[2].action: expected one of reject, mask, flag"), or
// what it asks for. fuzz/keyword_requests.cpp fuzzes all three.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "match/store/entry.hpp"

namespace herald::gateway::api {

// {"keywords": ["spam", {"keyword": "scam", "action": "reject", "category": "fraud"}]}
// A bare string is {"keyword": it, "action": "flag", "category": ""}.
[[nodiscard]] herald::Result<std::vector<match::store::Entry>, std::string> parse_keyword_add(
    std::string_view body);
// {"keywords": ["spam", "scam"]}
[[nodiscard]] herald::Result<std::vector<std::string>, std::string> parse_keyword_remove(
    std::string_view body);
// {"text": "..."}: the text.
[[nodiscard]] herald::Result<std::string, std::string> parse_keyword_match(std::string_view body);

}  // namespace herald::gateway::api
