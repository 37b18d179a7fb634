#include "gateway/api/keyword_requests.hpp"

#include <simdjson.h>

#include "gateway/api/json_body.hpp"

namespace herald::gateway {
namespace dom = simdjson::dom;
namespace {

bool keywords_array(dom::object& obj, dom::array& out, std::string& error) {
  if (obj["keywords"].get(out) != simdjson::SUCCESS) {
    error = "keywords: expected an array";
    return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> parse_keyword_add(std::string_view body,
                                             std::vector<match::store::Entry>& out) {
  dom::parser parser;
  dom::object obj;
  dom::array arr;
  std::string error;
  if (!parse_json_object(parser, body, obj, error) || !keywords_array(obj, arr, error))
    return error;
  out.clear();
  std::size_t i = 0;
  for (dom::element e : arr) {
    const std::string where = "keywords[" + std::to_string(i++) + "]";
    std::string_view s;
    if (e.get(s) == simdjson::SUCCESS) {
      out.emplace_back(std::string(s));
      continue;
    }
    dom::object o;
    if (e.get(o) != simdjson::SUCCESS) return where + ": expected a string or an object";
    match::store::Entry entry;
    if (o["keyword"].get(s) != simdjson::SUCCESS) return where + ".keyword: expected a string";
    entry.keyword.assign(s);
    if (auto a = o["action"]; a.error() != simdjson::NO_SUCH_FIELD) {
      std::string_view name;
      std::optional<match::store::Action> action;
      if (a.get(name) == simdjson::SUCCESS) action = match::store::parse_action(name);
      if (!action) return where + ".action: expected one of reject, mask, flag";
      entry.action = *action;
    }
    if (auto c = o["category"]; c.error() != simdjson::NO_SUCH_FIELD) {
      if (c.get(s) != simdjson::SUCCESS) return where + ".category: expected a string";
      entry.category.assign(s);
    }
    out.push_back(std::move(entry));
  }
  return std::nullopt;
}

std::optional<std::string> parse_keyword_remove(std::string_view body,
                                                std::vector<std::string>& out) {
  dom::parser parser;
  dom::object obj;
  dom::array arr;
  std::string error;
  if (!parse_json_object(parser, body, obj, error) || !keywords_array(obj, arr, error))
    return error;
  out.clear();
  std::size_t i = 0;
  for (dom::element e : arr) {
    std::string_view s;
    if (e.get(s) != simdjson::SUCCESS)
      return "keywords[" + std::to_string(i) + "]: expected a string";
    out.emplace_back(s);
    ++i;
  }
  return std::nullopt;
}

std::optional<std::string> parse_keyword_match(std::string_view body, std::string& text) {
  dom::parser parser;
  dom::object obj;
  std::string error;
  if (!parse_json_object(parser, body, obj, error)) return error;
  std::string_view s;
  if (obj["text"].get(s) != simdjson::SUCCESS) return "text: expected a string";
  text.assign(s);
  return std::nullopt;
}

}  // namespace herald::gateway
