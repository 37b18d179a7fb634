#include "gateway/api/keyword_requests.hpp"

#include <simdjson.h>

#include "gateway/api/json_body.hpp"

namespace herald::gateway::api {
namespace dom = simdjson::dom;
namespace {

herald::Result<dom::array, std::string> keywords_array(std::string_view body, dom::parser& parser) {
  auto obj = parse_json_object(parser, body);
  if (!obj) return std::move(obj).error();
  dom::array arr;
  if ((*obj)["keywords"].get(arr) != simdjson::SUCCESS) {
    return std::string("keywords: expected an array");
  }
  return arr;
}

}  // namespace

herald::Result<std::vector<match::store::Entry>, std::string> parse_keyword_add(
    std::string_view body) {
  dom::parser parser;
  auto arr = keywords_array(body, parser);
  if (!arr) return std::move(arr).error();
  std::vector<match::store::Entry> out;
  std::size_t i = 0;
  for (dom::element e : *arr) {
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
  return out;
}

herald::Result<std::vector<std::string>, std::string> parse_keyword_remove(std::string_view body) {
  dom::parser parser;
  auto arr = keywords_array(body, parser);
  if (!arr) return std::move(arr).error();
  std::vector<std::string> out;
  std::size_t i = 0;
  for (dom::element e : *arr) {
    std::string_view s;
    if (e.get(s) != simdjson::SUCCESS)
      return "keywords[" + std::to_string(i) + "]: expected a string";
    out.emplace_back(s);
    ++i;
  }
  return out;
}

herald::Result<std::string, std::string> parse_keyword_match(std::string_view body) {
  dom::parser parser;
  auto obj = parse_json_object(parser, body);
  if (!obj) return Fail{std::move(obj).error()};
  std::string_view s;
  if ((*obj)["text"].get(s) != simdjson::SUCCESS)
    return Fail{std::string("text: expected a string")};
  return std::string(s);
}

}  // namespace herald::gateway::api
