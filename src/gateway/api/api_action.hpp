// An endpoint the embedding application serves through the gateway's API
// (heraldd's /api/dns/reload), declared apart from the gateway's internals
// so the application needs only this and server.hpp.
#pragma once

#include <boost/beast/http/status.hpp>

#include <functional>
#include <string>

namespace herald::gateway::api {

// What an application action (below) answers: 200 with `result` (a JSON
// value, sent as {"result":RESULT}), or another status with the error body
// {"error":{"code":CODE,"message":MESSAGE}}.
struct ApiReply {
  boost::beast::http::status status = boost::beast::http::status::ok;
  std::string result = "{}";
  std::string code, message;
};

// An endpoint the embedding application serves (heraldd's /api/dns/reload):
// the gateway checks the API key and hands over the raw body; the action
// answers through `reply` exactly once, from any thread (the reply is posted
// back to the connection's shard). The action runs on the shard, so one
// that blocks or takes long must move its work elsewhere first. This keeps
// the gateway library free of the application's other parts (dns).
using ApiAction = std::function<void(std::string body, std::function<void(ApiReply)> reply)>;

}  // namespace herald::gateway::api
