#include "gateway/proxy/connect_hook.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cctype>

#include "core/json.hpp"
#include "core/text.hpp"
#include "gateway/protocol/client_object.hpp"
#include "gateway/protocol/room_name.hpp"
#include "gateway/protocol/user_name.hpp"
#include "gateway/proxy/result_object.hpp"

namespace herald::gateway::proxy {
namespace dom = simdjson::dom;

std::vector<std::string> parse_header_list(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view item = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (item.empty()) continue;
    std::string name(item);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
      // Safety: tolower of an unsigned char's value is a char's value.
      return static_cast<char>(std::tolower(c));
    });
    if (name != "x-forwarded-for" && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

std::string forwarded_headers_json(const http::HttpRequest& request,
                                   const std::vector<std::string>& names, std::string_view peer) {
  std::string out = "{";
  for (const std::string& name : names) {
    auto it = request.find(name);
    if (it == request.end()) continue;
    json::append_string(out, name);
    out += ':';
    json::append_string(out, std::string_view(it->value().data(), it->value().size()));
    out += ',';
  }
  std::string forwarded;
  if (auto it = request.find("x-forwarded-for"); it != request.end()) {
    forwarded.assign(it->value().data(), it->value().size());
    if (!forwarded.empty()) forwarded += ", ";
  }
  forwarded += peer;
  out += "\"x-forwarded-for\":";
  json::append_string(out, forwarded);
  out += '}';
  return out;
}

std::string connect_request_json(std::string_view client, std::string_view headers_json,
                                 std::string_view data_json) {
  std::string out;
  protocol::open_client_object(out, client);
  out += R"(,"transport":"websocket","protocol":"json","headers":)";
  out += headers_json;
  if (!data_json.empty()) {
    out += ",\"data\":";
    out += data_json;
  }
  out += '}';
  return out;
}

std::variant<ConnectGrant, std::string> read_connect_result(std::string_view result_json) {
  dom::object obj;
  if (!parse_result_object(result_json, obj)) return std::string("result is not a JSON object");
  ConnectGrant grant;
  std::string_view user;
  if (obj["user"].get(user) != simdjson::SUCCESS || !protocol::valid_user_name(user)) {
    return std::string("result.user must be a string of 1 to 64 bytes");
  }
  grant.user = user;
  dom::element value;
  if (obj["info"].get(value) == simdjson::SUCCESS) {
    if (!value.is_object()) return std::string("result.info must be an object");
    grant.info_json = simdjson::minify(value);
  }
  if (obj["data"].get(value) == simdjson::SUCCESS) grant.data_json = simdjson::minify(value);
  if (obj["meta"].get(value) == simdjson::SUCCESS) grant.meta_json = simdjson::minify(value);
  if (obj["expire_at"].get(value) == simdjson::SUCCESS) {
    std::int64_t at = 0;
    if (value.get(at) != simdjson::SUCCESS || at <= 0) {
      return std::string("result.expire_at must be a positive integer (Unix seconds)");
    }
    grant.expire_at = at;
  }
  if (obj["rooms"].get(value) == simdjson::SUCCESS) {
    dom::array rooms;
    if (value.get(rooms) != simdjson::SUCCESS) return std::string("result.rooms must be an array");
    for (dom::element r : rooms) {
      std::string_view room;
      if (r.get(room) != simdjson::SUCCESS) {
        return std::string("result.rooms must hold strings");
      }
      if (auto err = protocol::room_name_error(room)) {
        return "result.rooms: " + *err;
      }
      if (std::find(grant.rooms.begin(), grant.rooms.end(), room) == grant.rooms.end()) {
        grant.rooms.emplace_back(room);
      }
    }
  }
  return grant;
}

}  // namespace herald::gateway::proxy
