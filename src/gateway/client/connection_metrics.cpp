#include "gateway/client/connection_metrics.hpp"

namespace herald::gateway::client {

ConnectionMetrics ConnectionMetrics::registered(metrics::Registry& registry) {
  ConnectionMetrics gw;
  gw.messages_out = &registry.counter("herald_messages_out_total",
                                      "Messages (replies and pushes) written to WebSocket clients");
  gw.bytes_out = &registry.counter("herald_bytes_out_total", "Bytes written to WebSocket clients");
  gw.write_batches =
      &registry.counter("herald_write_batches_total",
                        "WebSocket writes; messages_out / write_batches is the coalescing factor");
  gw.slow_consumers = &registry.counter("herald_slow_consumer_disconnects_total",
                                        "Clients closed because their queue overflowed");
  gw.commands = &registry.counter("herald_commands_total", "Client commands received");
  gw.command_errors =
      &registry.counter("herald_command_errors_total", "Client commands answered with an error");
  gw.ws_connections = &registry.gauge("herald_ws_connections", "WebSocket connections open now");
  gw.sse_streams = &registry.gauge("herald_sse_streams", "SSE event streams open now");
  gw.subscriptions = &registry.gauge("herald_subscriptions", "Active room subscriptions");
  gw.publish_to_write = &registry.histogram(
      "herald_publish_to_write_seconds",
      "From a publication's acceptance to the write that carried it (oldest in each batch)",
      metrics::exponential_buckets(0.0001, 2, 16));
  return gw;
}

}  // namespace herald::gateway::client
