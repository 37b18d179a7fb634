// One backend hook as the node knows it: its name (the metrics' hook label),
// where it posts, and the metrics of its requests. Built once at start-up
// from proxy.<hook>_url; read-only afterwards, so every shard's
// BackendClient for the hook shares it without a lock (the metrics are
// atomics).
//
// The URL's host is resolved here, once: a name lookup has no deadline in
// Asio (getaddrinfo on a helper thread), so resolving per connection could
// hold a request past proxy.timeout. The cost: a backend that moves to
// another address needs a heraldd restart (or an IP literal, or a local
// proxy in front).
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "core/metrics/registry.hpp"
#include "gateway/proxy/backend_answer.hpp"
#include "gateway/proxy/backend_url.hpp"

namespace herald::gateway::proxy {

struct Hook {
  // Parses `url_text` (the value of configuration key `key`) and resolves
  // its host; throws std::runtime_error naming the key when either fails.
  // Registers herald_proxy_requests_total{hook}, herald_proxy_errors_total
  // {hook,kind} for every Failure, and herald_proxy_duration_seconds{hook}.
  Hook(std::string name, std::string_view key, std::string_view url_text,
       std::chrono::milliseconds timeout, metrics::Registry& registry);

  std::string name;
  BackendUrl url;
  std::vector<boost::asio::ip::tcp::endpoint> endpoints;  // url's host, resolved
  std::chrono::milliseconds timeout;
  metrics::Counter* requests = nullptr;       // every request, refused ones included
  std::array<metrics::Counter*, 5> errors{};  // by Failure
  metrics::Histogram* duration = nullptr;     // requests sent, answered or not

  [[nodiscard]] metrics::Counter& error(Failure f) const {
    // Safety: Failure's five values are 0..4, the indexes of errors.
    return *errors[static_cast<std::size_t>(f)];
  }
};

}  // namespace herald::gateway::proxy
