#include "gateway/codec/room_query_json.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace herald::gateway::codec {

namespace dom = simdjson::dom;
using Expr = live::RoomFilterExpr;
using Kind = live::RoomFilterExpr::Kind;

namespace {

// The conditions that take true or false.
constexpr std::array<std::pair<std::string_view, Kind>, 7> kFlags{{
    {"unread", Kind::unread},
    {"mentions", Kind::mentions},
    {"favourite", Kind::favourite},
    {"low_priority", Kind::low_priority},
    {"invites", Kind::invite},
    {"joined", Kind::joined},
    {"non_left", Kind::non_left},
}};

class FilterReader {
 public:
  explicit FilterReader(const JsonFields& fields) : f_(fields) {}

  // A filter object at `where`, `depth` objects deep: its conditions, all
  // of which hold.
  bool object(dom::element e, const std::string& where, std::size_t depth, Expr& out) {
    dom::object obj;
    if (e.get(obj) != simdjson::SUCCESS) return f_.fail(where, "a filter object");
    if (depth > live::kMaxFilterDepth) {
      return f_.fail(where,
                     "filters nested at most " + std::to_string(live::kMaxFilterDepth) + " deep");
    }
    out = Expr{Kind::all, {}, {}};
    for (auto [key, value] : obj) {
      if (!condition(key, value, where + "." + std::string(key), depth, out.parts)) return false;
    }
    return true;
  }

 private:
  bool condition(std::string_view key, dom::element value, const std::string& at, std::size_t depth,
                 std::vector<Expr>& parts) {
    for (const auto& [name, kind] : kFlags) {
      if (key != name) continue;
      bool on = false;
      if (value.get(on) != simdjson::SUCCESS) return f_.fail(at, "true or false");
      if (on) return add(at, Expr{kind, {}, {}}, parts);
      return true;
    }
    if (key == "category") {
      std::string_view c;
      if (value.get(c) != simdjson::SUCCESS || (c != "direct" && c != "group")) {
        return f_.fail(at, "\"direct\" or \"group\"");
      }
      return add(at, Expr{c == "direct" ? Kind::direct : Kind::group, {}, {}}, parts);
    }
    if (key == "name" || key == "fuzzy_name") {
      std::string_view text;
      if (value.get(text) != simdjson::SUCCESS) return f_.fail(at, "a string");
      return add(at, Expr{key == "name" ? Kind::name : Kind::fuzzy_name, std::string(text), {}},
                 parts);
    }
    if (key == "all" || key == "any") {
      dom::array list;
      if (value.get(list) != simdjson::SUCCESS) return f_.fail(at, "a list of filter objects");
      Expr e{key == "all" ? Kind::all : Kind::any, {}, {}};
      std::size_t i = 0;
      for (dom::element item : list) {
        Expr part;
        if (!object(item, at + "[" + std::to_string(i++) + "]", depth + 1, part)) return false;
        e.parts.push_back(std::move(part));
      }
      return add(at, std::move(e), parts);
    }
    if (key == "not") {
      Expr part;
      if (!object(value, at, depth + 1, part)) return false;
      Expr e{Kind::not_, {}, {}};
      e.parts.push_back(std::move(part));
      return add(at, std::move(e), parts);
    }
    return f_.fail(at,
                   "a condition: unread, mentions, favourite, low_priority, invites, joined, "
                   "non_left, category, name, fuzzy_name, all, any or not");
  }

  bool add(const std::string& at, Expr e, std::vector<Expr>& parts) {
    if (++nodes_ > live::kMaxFilterNodes) {
      return f_.fail(
          at, "a filter of at most " + std::to_string(live::kMaxFilterNodes) + " conditions");
    }
    parts.push_back(std::move(e));
    return true;
  }

  const JsonFields& f_;
  std::size_t nodes_ = 0;
};

}  // namespace

bool read_room_filter(const JsonFields& fields, dom::object params, Expr& out) {
  out = Expr{Kind::all, {}, {}};
  dom::element e;
  if (params["filter"].get(e) != simdjson::SUCCESS) return true;
  return FilterReader(fields).object(e, "filter", 1, out);
}

bool read_room_sort(const JsonFields& fields, dom::object params, live::RoomSorter& out) {
  static constexpr std::string_view kExpected =
      "\"activity\", \"name\" or a list of \"local\", \"recency\" and \"name\"";
  out = live::default_room_sorter();
  dom::element e;
  if (params["sort"].get(e) != simdjson::SUCCESS) return true;
  std::string_view named;
  if (e.get(named) == simdjson::SUCCESS) {
    if (named == "name") {
      out = live::sort_name();
    } else if (named != "activity") {
      return fields.fail("sort", kExpected);
    }
    return true;
  }
  dom::array keys;
  if (e.get(keys) != simdjson::SUCCESS) return fields.fail("sort", kExpected);
  live::RoomSorter sorter;
  std::size_t n = 0;
  for (dom::element k : keys) {
    std::string_view key;
    if (k.get(key) != simdjson::SUCCESS) return fields.fail("sort", kExpected);
    live::RoomSortKey sort_key = live::RoomSortKey::name;
    if (key == "local") {
      sort_key = live::RoomSortKey::unsent_first;
    } else if (key == "recency") {
      sort_key = live::RoomSortKey::recency;
    } else if (key != "name") {
      return fields.fail("sort", kExpected);
    }
    if (++n > live::RoomSorter::kMaxKeys) {
      return fields.fail("sort", "at most " + std::to_string(live::RoomSorter::kMaxKeys) + " keys");
    }
    sorter.then(live::RoomSorter(sort_key));
  }
  if (n == 0) return fields.fail("sort", kExpected);
  out = sorter;
  return true;
}

}  // namespace herald::gateway::codec
