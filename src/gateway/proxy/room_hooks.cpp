#include "gateway/proxy/room_hooks.hpp"

#include <simdjson.h>

#include "core/json.hpp"
#include "gateway/protocol/client_object.hpp"
#include "gateway/proxy/request_meta.hpp"
#include "gateway/proxy/result_object.hpp"

namespace herald::gateway::proxy {
namespace dom = simdjson::dom;

std::string client_request_json(std::string_view client, std::string_view user,
                                std::string_view field, std::string_view value,
                                std::string_view data_json, std::string_view meta_json) {
  std::string out;
  out.reserve(56 + client.size() + user.size() + field.size() + value.size() + data_json.size() +
              meta_json.size());
  protocol::open_client_object(out, client, user);
  out += ',';
  json::append_string(out, field);
  out += ':';
  json::append_string(out, value);
  if (!data_json.empty()) {
    out += ",\"data\":";
    out += data_json;
  }
  append_meta(out, meta_json);
  out += '}';
  return out;
}

std::variant<SubscribeGrant, std::string> read_subscribe_result(std::string_view result_json) {
  dom::object obj;
  if (!parse_result_object(result_json, obj)) return std::string("result is not a JSON object");
  SubscribeGrant grant;
  dom::element value;
  if (obj["info"].get(value) == simdjson::SUCCESS) {
    if (!value.is_object()) return std::string("result.info must be an object");
    grant.info_json = simdjson::minify(value);
  }
  if (obj["data"].get(value) == simdjson::SUCCESS) grant.data_json = simdjson::minify(value);
  return grant;
}

std::variant<PublishGrant, std::string> read_publish_result(std::string_view result_json) {
  dom::object obj;
  if (!parse_result_object(result_json, obj)) return std::string("result is not a JSON object");
  PublishGrant grant;
  dom::element value;
  if (obj["data"].get(value) == simdjson::SUCCESS) grant.data_json = simdjson::minify(value);
  if (obj["skip_history"].get(value) == simdjson::SUCCESS &&
      value.get(grant.skip_history) != simdjson::SUCCESS) {
    return std::string("result.skip_history must be true or false");
  }
  return grant;
}

}  // namespace herald::gateway::proxy
