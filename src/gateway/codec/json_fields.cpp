#include "gateway/codec/json_fields.hpp"

namespace herald::gateway::codec {
namespace dom = simdjson::dom;

bool parse_command_object(dom::parser& parser, std::string_view line, std::size_t max_line_bytes,
                          dom::object& out, protocol::CommandError& error) {
  if (line.size() > max_line_bytes) {
    error.message = "command of " + std::to_string(line.size()) + " bytes is over the limit of " +
                    std::to_string(max_line_bytes);
    return false;
  }
  dom::element root;
  if (auto ec = parser.parse(line.data(), line.size()).get(root); ec) {
    error.message = std::string("malformed JSON: ") + simdjson::error_message(ec);
    return false;
  }
  if (root.get(out) != simdjson::SUCCESS) {
    error.message = "a command must be a JSON object";
    return false;
  }
  return true;
}

bool JsonFields::fail(std::string_view field, std::string_view expected) const {
  error->code = protocol::ErrorCode::bad_request;
  error->message =
      std::string(method) + "." + std::string(field) + ": expected " + std::string(expected);
  return false;
}

bool JsonFields::string(dom::object obj, std::string_view field, std::string& out,
                        bool required) const {
  dom::element e;
  if (obj[field].get(e) != simdjson::SUCCESS) return !required || fail(field, "a string");
  std::string_view v;
  if (e.get(v) != simdjson::SUCCESS) return fail(field, "a string");
  out.assign(v);
  return true;
}

bool JsonFields::uint(dom::object obj, std::string_view field, std::optional<std::uint64_t>& out,
                      std::uint64_t max) const {
  dom::element e;
  if (obj[field].get(e) != simdjson::SUCCESS) return true;
  std::uint64_t v = 0;
  if (e.get(v) != simdjson::SUCCESS || v > max) {
    return fail(field, "an unsigned integer up to " + std::to_string(max));
  }
  out = v;
  return true;
}

bool JsonFields::int_in(dom::object obj, std::string_view field, std::optional<std::int64_t>& out,
                        std::int64_t min, std::int64_t max) const {
  dom::element e;
  if (obj[field].get(e) != simdjson::SUCCESS) return true;
  std::int64_t v = 0;
  if (e.get(v) != simdjson::SUCCESS || v < min || v > max) {
    return fail(field, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  out = v;
  return true;
}

bool JsonFields::boolean(dom::object obj, std::string_view field, bool& out) const {
  dom::element e;
  if (obj[field].get(e) != simdjson::SUCCESS) return true;
  if (e.get(out) != simdjson::SUCCESS) return fail(field, "true or false");
  return true;
}

bool JsonFields::object(dom::object obj, std::string_view field,
                        std::optional<dom::object>& out) const {
  dom::element e;
  if (obj[field].get(e) != simdjson::SUCCESS) return true;
  dom::object o;
  if (e.get(o) != simdjson::SUCCESS) return fail(field, "an object");
  out = o;
  return true;
}

void JsonFields::any_json(dom::object obj, std::string_view field, std::string& out) const {
  dom::element e;
  if (obj[field].get(e) == simdjson::SUCCESS) out = simdjson::minify(e);
}

}  // namespace herald::gateway::codec
