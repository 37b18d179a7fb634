#include "gateway/proxy/result_object.hpp"

namespace herald::gateway::proxy {

bool parse_result_object(std::string_view json, simdjson::dom::object& out) {
  thread_local simdjson::dom::parser parser;
  return parser.parse(json.data(), json.size()).get(out) == simdjson::SUCCESS;
}

}  // namespace herald::gateway::proxy
