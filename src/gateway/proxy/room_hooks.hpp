// The subscribe and publish hooks' two ends, and the request body every
// hook that acts for a connected client shares.
//
// Both hooks are asked per namespace (subscribe_proxy, publish_proxy): the
// application decides who may join a room and what may be said in it,
// where its own rules and data live. A result is checked whole before any
// of it is used, as the connect hook's is (connect_hook.hpp): a result
// with an `info` that is not an object, or a `data` that is not a
// publishable value, is a bad answer (116), never half applied.
//
// What a publish result may change is the data only: the room, the
// publisher and the order of publications stay heraldd's. Moderation runs
// after the hook, on the data it returns (the gateway's moderating broker
// sees the request the hook produced), so an application cannot publish
// around the namespace's moderation by rewriting.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace herald::gateway::proxy {

// {"client","user","<field>":"<value>","data"?,"meta"?}: the body of rpc
// ("method"), subscribe and publish ("room"). `data_json` is valid JSON
// (the command parser re-serialized it) or empty (then left out);
// `meta_json` the connection's meta (its token's or the connect hook's),
// valid JSON or empty.
[[nodiscard]] std::string client_request_json(std::string_view client, std::string_view user,
                                              std::string_view field, std::string_view value,
                                              std::string_view data_json,
                                              std::string_view meta_json);

// A subscribe result: {"info"?: object, "data"?: any}. info joins the
// subscriber's presence entry and join/leave pushes in that room as
// "chan_info"; data goes to the client in the subscribe reply.
struct SubscribeGrant {
  std::string info_json;
  std::string data_json;
};
[[nodiscard]] std::variant<SubscribeGrant, std::string> read_subscribe_result(
    std::string_view result_json);

// A publish result: {"data"?: any, "skip_history"?: bool}. Without data the
// client's is published. With skip_history the publication goes outside the
// room's stream (PublishRequest::skip_history): live to the subscribers of
// the moment, no offset, so it leaves no hole in anyone's recovery.
struct PublishGrant {
  std::optional<std::string> data_json;
  bool skip_history = false;
};
[[nodiscard]] std::variant<PublishGrant, std::string> read_publish_result(
    std::string_view result_json);

}  // namespace herald::gateway::proxy
