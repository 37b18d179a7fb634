// The top-level JSON object of an HTTP API request body, with the error
// message every /api endpoint gives when it is not one.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace herald::gateway {

// Parses `body` into `obj` (which points into `parser`'s buffers); on failure
// returns false and says why in `error`.
inline bool parse_json_object(simdjson::dom::parser& parser, std::string_view body,
                              simdjson::dom::object& obj, std::string& error) {
  simdjson::dom::element root;
  if (auto ec = parser.parse(body.data(), body.size()).get(root); ec) {
    error = std::string("body is not valid JSON: ") + simdjson::error_message(ec);
    return false;
  }
  if (root.get(obj) != simdjson::SUCCESS) {
    error = "body must be a JSON object";
    return false;
  }
  return true;
}

}  // namespace herald::gateway
