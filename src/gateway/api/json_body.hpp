// The top-level JSON object of an HTTP API request body, with the error
// message every /api endpoint gives when it is not one.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace herald::gateway::api {

// The body's top-level object (which points into `parser`'s buffers), or
// why it is not one.
inline herald::Result<simdjson::dom::object, std::string> parse_json_object(
    simdjson::dom::parser& parser, std::string_view body) {
  simdjson::dom::element root;
  if (auto ec = parser.parse(body.data(), body.size()).get(root); ec) {
    return std::string("body is not valid JSON: ") + simdjson::error_message(ec);
  }
  simdjson::dom::object obj;
  if (root.get(obj) != simdjson::SUCCESS) return std::string("body must be a JSON object");
  return obj;
}

}  // namespace herald::gateway::api
