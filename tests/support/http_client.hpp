// A real HTTP/1.1 client for tests (Boost.Beast, blocking, bounded by a
// timeout). Each call opens its own connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace herald::test {

struct HttpReply {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

HttpReply http_get(const std::string& host, std::uint16_t port, const std::string& target,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

// One request with any method, headers and body (Content-Length is set from
// the body; Host is `host` unless `headers` names one).
struct HttpCall {
  std::string method = "GET";
  std::string target = "/";
  std::map<std::string, std::string> headers;
  std::string body;
};
HttpReply http_request(const std::string& host, std::uint16_t port, const HttpCall& call,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10));

// A call of heraldd's server API on 127.0.0.1: POST `body` as JSON, with
// "Authorization: apikey KEY" when `api_key` is not empty (dev mode needs
// none).
HttpReply api_post(std::uint16_t port, const std::string& target, const std::string& body,
                   const std::string& api_key = "",
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

// Sends raw bytes, then reads until the server closes or the time runs out;
// returns what came back. For requests a proper client would refuse to send.
std::string raw_exchange(const std::string& host, std::uint16_t port, const std::string& bytes,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10));

// The same, saying how the read ended: a test that expects the server to
// hang up must not pass when its own timeout ran out instead.
struct RawExchange {
  std::string bytes;
  bool closed_by_server = false;  // EOF or reset; false: the timeout ran out
};
RawExchange raw_exchange_until_close(const std::string& host, std::uint16_t port,
                                     const std::string& bytes,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(10));

// One sample of a Prometheus text exposition, e.g. "herald_subscriptions" or
// "herald_recoveries_total{outcome=\"recovered\"}"; -1 when absent.
double metric_value(const std::string& exposition, const std::string& series);

}  // namespace herald::test
