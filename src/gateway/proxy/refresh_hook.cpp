#include "gateway/proxy/refresh_hook.hpp"

#include <simdjson.h>

#include "core/json.hpp"
#include "gateway/protocol/client_object.hpp"
#include "gateway/proxy/request_meta.hpp"
#include "gateway/proxy/result_object.hpp"

namespace herald::gateway::proxy {
namespace dom = simdjson::dom;

std::string refresh_request_json(std::string_view client, std::string_view user,
                                 std::string_view headers_json, std::string_view meta_json) {
  std::string out;
  protocol::open_client_object(out, client, user);
  out += ",\"headers\":";
  out += headers_json.empty() ? std::string_view("{}") : headers_json;
  append_meta(out, meta_json);
  out += '}';
  return out;
}

std::variant<RefreshGrant, std::string> read_refresh_result(std::string_view result_json) {
  dom::object obj;
  if (!parse_result_object(result_json, obj)) return std::string("result is not a JSON object");
  dom::element value;
  bool expired = false;
  if (obj["expired"].get(value) == simdjson::SUCCESS) {
    if (value.get(expired) != simdjson::SUCCESS) {
      return std::string("result.expired must be true or false");
    }
  }
  const bool has_expire_at = obj["expire_at"].get(value) == simdjson::SUCCESS;
  if (expired) {
    if (has_expire_at) return std::string("result has both expired and expire_at");
    return RefreshGrant{};
  }
  std::int64_t at = 0;
  if (!has_expire_at || value.get(at) != simdjson::SUCCESS || at <= 0) {
    return std::string(
        "result must have expire_at (a positive integer, Unix seconds) or expired: true");
  }
  return RefreshGrant{at};
}

}  // namespace herald::gateway::proxy
