// State the server shares with its connections. Fields marked "shard-local"
// are touched only from that shard's thread (no lock). The atomics are the
// only state touched across shards; connections touch them on open and
// close, and per write batch, never per recipient of a message.
#pragma once

#include <boost/asio/io_context.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/metrics/registry.hpp"
#include "gateway/auth/token.hpp"
#include "gateway/broker/broker.hpp"
#include "gateway/codec/codec.hpp"
#include "gateway/fanout/hub.hpp"
#include "gateway/http/origin_policy.hpp"
#include "gateway/http/router.hpp"
#include "gateway/limits/connections_per_ip.hpp"
#include "gateway/limits/user_rates.hpp"
#include "gateway/options.hpp"
#include "gateway/proxy/backend_client.hpp"
#include "gateway/proxy/connect_hook.hpp"
#include "gateway/proxy/hook.hpp"
#include "gateway/proxy/in_flight_limit.hpp"
#include "gateway/tls/tls_credentials.hpp"

namespace herald::gateway {

class HttpSession;
class ShardPool;
class WriteCork;  // ws/write_cork.hpp: the WebSocket transport's, held here opaque
namespace client {
class Client;
}

// A WebSocket endpoint: the path clients upgrade on and the codec of its
// protocol (codec/codec.hpp). Its index is the codec's slot in every
// fanout::Message, so at most Message::kCodecSlots endpoints exist; the
// first is Herald's own, /ws.
struct WsEndpoint {
  std::string path;
  codec::CodecFactory make_codec;
};

struct ShardState {
  // Out of line (server_state.cpp), where WriteCork is complete: the core's
  // headers include this one and must not reach the transports.
  ShardState(boost::asio::io_context& ctx, std::chrono::nanoseconds write_delay);
  ~ShardState();
  ShardState(const ShardState&) = delete;
  ShardState& operator=(const ShardState&) = delete;
  std::unordered_set<HttpSession*> http_sessions;  // shard-local
  // shard-local: every client (WebSocket and SSE alike), told on shutdown
  // and found by a per-user disconnect.
  std::unordered_set<client::Client*> clients;
  fanout::Hub hub;                  // shard-local: room -> local subscribers
  std::unique_ptr<WriteCork> cork;  // shard-local: WebSocket sessions to flush this turn
  // shard-local: one codec per WebSocket endpoint (ServerState::ws_endpoints),
  // its decoder reused per message.
  std::vector<std::unique_ptr<codec::Codec>> codecs;
  // shard-local: posts to each hook's proxy.<hook>_url; null where it is
  // empty. Stopped (idle connections closed) before the io_context goes.
  proxy::PerHook<std::unique_ptr<proxy::BackendClient>> backends;
  // Bytes queued for clients of this shard; written by this shard only,
  // read by /metrics.
  std::atomic<std::int64_t> queued_bytes{0};
};

// The series the connections count, registered under their herald_* names
// by registered(): the server's composition and the core's tests wire them
// the same way.
struct GatewayMetrics {
  [[nodiscard]] static GatewayMetrics registered(metrics::Registry& registry);

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

struct ServerState {
  // Users whose HTTP publish rate is tracked before idle ones are dropped.
  static constexpr std::size_t kMaxRatedUsers = 100'000;
  ServerState(const Options& o, metrics::Registry& r)
      : options(o),
        registry(r),
        origin_policy(o.allowed_origins, o.dev_mode()),
        per_ip(o.max_connections_per_ip, o.per_ip_exempt_loopback),
        http_publish_rates(o.client.publish_rate, kMaxRatedUsers),
        proxy_in_flight(o.proxy.max_in_flight),
        forward_headers(proxy::parse_header_list(o.proxy.forward_headers)) {}

  const Options& options;
  metrics::Registry& registry;
  HttpRouter router;  // filled before start(), read-only afterwards
  // Filled before start(), read-only afterwards; [0] is /ws.
  std::vector<WsEndpoint> ws_endpoints;
  OriginPolicy origin_policy;  // checked on every request before routing
  std::vector<std::unique_ptr<ShardState>> shards;
  Broker* broker = nullptr;
  ShardPool* pool = nullptr;                      // for work that must visit every shard
  std::unique_ptr<auth::TokenVerifier> verifier;  // null without auth.hmac_secret
  bool dev_mode = false;
  // server.tls_*: null when the listener is plain. Its current() is taken
  // per accepted connection; a reload swaps it (tls/tls_credentials.hpp).
  std::unique_ptr<TlsCredentials> tls;

  std::atomic<bool> draining{false};
  std::atomic<bool> stopped{false};  // shards stopping: no more cross-shard posts
  std::atomic<std::size_t> connections{0};
  // server.max_connections_per_ip: asked by the acceptor, released by the
  // sessions' leases (on their shards). Outlives every session.
  ConnectionsPerIp per_ip;
  // client.publish_rate of HTTP publishes (sse/client_publish.hpp), per
  // user over every shard.
  UserRates http_publish_rates;
  // proxy.max_in_flight, over every hook and shard; outlives every request.
  proxy::InFlightLimit proxy_in_flight;
  // The backend hooks (proxy.<hook>_url); null where the URL is empty.
  // Read-only after start().
  proxy::PerHook<std::unique_ptr<proxy::Hook>> hooks;
  // proxy.forward_headers, parsed once (lower-case names).
  std::vector<std::string> forward_headers;

  // Responses by status class: [0] 1xx ... [4] 5xx.
  std::array<metrics::Counter*, 5> responses{};
  metrics::Counter* accepted = nullptr;
  metrics::Counter* rejected_limit = nullptr;
  metrics::Counter* rejected_per_ip = nullptr;
  metrics::Counter* tls_handshake_failures = nullptr;
  GatewayMetrics gw;

  void count_response(unsigned status) {
    unsigned cls = status / 100;
    if (cls >= 1 && cls <= 5) responses[cls - 1]->inc();
  }
};

}  // namespace herald::gateway
