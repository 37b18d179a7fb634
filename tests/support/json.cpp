#include "support/json.hpp"

#include <simdjson.h>

namespace herald::test {
namespace {

std::optional<simdjson::dom::element> at(simdjson::dom::parser& p, const std::string& text,
                                         const std::string& pointer) {
  simdjson::dom::element root;
  if (p.parse(text).get(root) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::element e;
  if (root.at_pointer(pointer).get(e) != simdjson::SUCCESS) return std::nullopt;
  return e;
}

}  // namespace

bool json_valid(const std::string& text) {
  simdjson::dom::parser p;
  simdjson::dom::element root;
  return p.parse(text).get(root) == simdjson::SUCCESS;
}

bool json_has(const std::string& text, const std::string& pointer) {
  simdjson::dom::parser p;
  return at(p, text, pointer).has_value();
}

std::optional<std::string> json_str(const std::string& text, const std::string& pointer) {
  simdjson::dom::parser p;
  auto e = at(p, text, pointer);
  std::string_view v;
  if (!e || e->get(v) != simdjson::SUCCESS) return std::nullopt;
  return std::string(v);
}

std::optional<std::uint64_t> json_uint(const std::string& text, const std::string& pointer) {
  simdjson::dom::parser p;
  auto e = at(p, text, pointer);
  std::uint64_t v = 0;
  if (!e || e->get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

std::optional<bool> json_bool(const std::string& text, const std::string& pointer) {
  simdjson::dom::parser p;
  auto e = at(p, text, pointer);
  bool v = false;
  if (!e || e->get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

std::optional<std::string> json_raw(const std::string& text, const std::string& pointer) {
  simdjson::dom::parser p;
  auto e = at(p, text, pointer);
  if (!e) return std::nullopt;
  return simdjson::minify(*e);
}

std::optional<std::size_t> json_size(const std::string& text, const std::string& pointer) {
  simdjson::dom::parser p;
  auto e = at(p, text, pointer);
  simdjson::dom::array a;
  if (!e || e->get(a) != simdjson::SUCCESS) return std::nullopt;
  return a.size();
}

}  // namespace herald::test
