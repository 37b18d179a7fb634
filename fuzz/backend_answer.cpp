// Fuzz target: what heraldd reads from the application backend (an answer
// body, and the hook URL of the configuration). Must never crash; a result
// must be a JSON object heraldd can relay as it is, and a relayed error or
// disconnect code must lie in the backend's ranges (never one of Herald's
// own). A result read as a connect grant names a user of 1..64 bytes and
// only valid room names; read as a subscribe or publish grant, its info is
// an object and its data a JSON value; read as a refresh, an expire_at is
// positive. A URL that parses has a port in 1..65535 and a target
// starting '/'.
#include "gateway/proxy/backend_answer.hpp"

#include <simdjson.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gateway/protocol/room_name.hpp"
#include "gateway/proxy/backend_url.hpp"
#include "gateway/proxy/connect_hook.hpp"
#include "gateway/proxy/refresh_hook.hpp"
#include "gateway/proxy/room_hooks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::gateway::proxy;
  static AnswerClassifier classifier;
  static simdjson::dom::parser check;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view body(reinterpret_cast<const char*>(data), size);
  BackendAnswer a = classifier.classify(200, body);
  if (auto* r = std::get_if<ResultAnswer>(&a)) {
    simdjson::dom::element e;
    if (check.parse(r->json).get(e) != simdjson::SUCCESS || !e.is_object()) std::abort();
    auto read = read_connect_result(r->json);
    if (auto* grant = std::get_if<ConnectGrant>(&read)) {
      if (grant->user.empty() || grant->user.size() > 64) std::abort();
      for (const auto& room : grant->rooms)
        if (herald::gateway::protocol::room_name_error(room)) std::abort();
    } else if (std::get<std::string>(read).empty()) {
      std::abort();
    }
    auto subscribed = read_subscribe_result(r->json);
    if (auto* grant = std::get_if<SubscribeGrant>(&subscribed)) {
      if (!grant->info_json.empty() && grant->info_json.front() != '{') std::abort();
    } else if (std::get<std::string>(subscribed).empty()) {
      std::abort();
    }
    auto refreshed = read_refresh_result(r->json);
    if (auto* grant = std::get_if<RefreshGrant>(&refreshed)) {
      if (grant->expire_at && *grant->expire_at <= 0) std::abort();
    } else if (std::get<std::string>(refreshed).empty()) {
      std::abort();
    }
    auto published = read_publish_result(r->json);
    if (auto* grant = std::get_if<PublishGrant>(&published)) {
      if (grant->data_json && grant->data_json->empty()) std::abort();
    } else if (std::get<std::string>(published).empty()) {
      std::abort();
    }
  } else if (auto* err = std::get_if<ErrorAnswer>(&a)) {
    if (err->code < kMinBackendErrorCode) std::abort();
  } else if (auto* d = std::get_if<DisconnectAnswer>(&a)) {
    if (d->code < kMinBackendDisconnectCode || d->code > kMaxBackendDisconnectCode) std::abort();
    if (d->reason.size() > 123) std::abort();
  } else if (std::get<FailureAnswer>(a).detail.empty()) {
    std::abort();
  }
  auto url = parse_backend_url("proxy.rpc_url", body);
  if (auto* u = std::get_if<BackendUrl>(&url)) {
    const unsigned long port = std::stoul(u->port);
    if (port == 0 || port > 65535 || u->host.empty() || !u->target.starts_with('/')) std::abort();
  } else if (std::get<std::string>(url).empty()) {
    std::abort();
  }
  return 0;
}
