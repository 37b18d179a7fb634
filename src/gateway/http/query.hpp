// The query string of a request target ("/sse?room=a&room=b"), decoded:
// application/x-www-form-urlencoded as browsers write it (URLSearchParams),
// '+' for a space and %XX for any byte. Repeated keys are kept, in order,
// since a repeated key is how a list is sent (room=a&room=b).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace herald::gateway::http {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// The parameters after the first '?' of `target` (none without one), or
// what is wrong with them: a '%' not followed by two hex digits.
[[nodiscard]] std::variant<QueryParams, std::string> parse_query(std::string_view target);

// Every value of `key`, in order.
[[nodiscard]] std::vector<std::string> query_values(const QueryParams& params,
                                                    std::string_view key);
// The first value of `key`, or empty.
[[nodiscard]] std::string query_value(const QueryParams& params, std::string_view key);

}  // namespace herald::gateway::http
