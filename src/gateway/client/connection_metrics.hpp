// The series every connection counts (replies and pushes out, commands,
// subscriptions, open connections by transport), registered under their
// herald_* names by registered(): the server's composition and the core's
// tests wire them the same way.
#pragma once

#include "core/metrics/registry.hpp"

namespace herald::gateway::client {

struct ConnectionMetrics {
  [[nodiscard]] static ConnectionMetrics registered(metrics::Registry& registry);

  metrics::Counter* messages_out = nullptr;
  metrics::Counter* bytes_out = nullptr;
  metrics::Counter* write_batches = nullptr;
  metrics::Counter* slow_consumers = nullptr;
  metrics::Counter* commands = nullptr;
  metrics::Counter* command_errors = nullptr;
  metrics::Gauge* ws_connections = nullptr;
  metrics::Gauge* sse_streams = nullptr;
  metrics::Gauge* subscriptions = nullptr;
  metrics::Histogram* publish_to_write = nullptr;
};

}  // namespace herald::gateway::client
