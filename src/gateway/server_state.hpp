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
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/metrics/registry.hpp"
#include "gateway/broker/node_registry.hpp"
#include "gateway/broker/survey.hpp"
#include "gateway/client/context.hpp"
#include "gateway/codec/codec.hpp"
#include "gateway/http/origin_policy.hpp"
#include "gateway/http/router.hpp"
#include "gateway/limits/connections_per_ip.hpp"
#include "gateway/limits/user_rates.hpp"
#include "gateway/proxy/connect_hook.hpp"
#include "gateway/proxy/in_flight_limit.hpp"
#include "gateway/tls/tls_credentials.hpp"

namespace herald::gateway {

class HttpSession;
class ShardPool;
namespace ws {
class WriteCork;  // ws/write_cork.hpp: the WebSocket transport's, held here opaque
}

// A WebSocket endpoint: the path clients upgrade on and the codec of its
// protocol (codec/codec.hpp). Its index is the codec's slot in every
// fanout::Message, so at most Message::kCodecSlots endpoints exist; the
// first is Herald's own, /ws.
struct WsEndpoint {
  std::string path;
  codec::CodecFactory make_codec;
};

// One shard's state: the core's part (client/context.hpp) and the
// transports' (HTTP sessions, the WebSocket write cork, the codecs).
struct ShardState : client::ShardCore {
  // Out of line (server_state.cpp), where WriteCork is complete.
  ShardState(unsigned shard_index, boost::asio::io_context& ctx,
             std::chrono::nanoseconds write_delay);
  ~ShardState();
  ShardState(const ShardState&) = delete;
  ShardState& operator=(const ShardState&) = delete;
  std::unordered_set<HttpSession*> http_sessions;  // shard-local
  std::unique_ptr<ws::WriteCork> cork;  // shard-local: WebSocket sessions to flush this turn
  // shard-local: one codec per WebSocket endpoint (ServerState::ws_endpoints),
  // its decoder reused per message.
  std::vector<std::unique_ptr<codec::Codec>> codecs;
  // Bytes queued for clients of this shard; written by this shard only,
  // read by /metrics.
  std::atomic<std::int64_t> queued_bytes{0};
};

// The server's state: the core's part (client/context.hpp: options,
// broker, token key, hooks, connection metrics) and what the listener, the
// transports and the HTTP API add to it.
struct ServerState : client::CoreContext {
  // Users whose HTTP publish rate is tracked before idle ones are dropped.
  static constexpr std::size_t kMaxRatedUsers = 100'000;
  ServerState(const Options& o, metrics::Registry& r)
      : client::CoreContext(o),
        registry(r),
        origin_policy(o.allowed_origins, o.dev_mode()),
        per_ip(o.max_connections_per_ip, o.per_ip_exempt_loopback),
        http_publish_rates(o.client.publish_rate, kMaxRatedUsers),
        proxy_in_flight(o.proxy.max_in_flight),
        forward_headers(proxy::parse_header_list(o.proxy.forward_headers)) {}

  metrics::Registry& registry;
  http::HttpRouter router;  // filled before start(), read-only afterwards
  // Filled before start(), read-only afterwards; [0] is /ws.
  std::vector<WsEndpoint> ws_endpoints;
  http::OriginPolicy origin_policy;  // checked on every request before routing
  std::vector<std::unique_ptr<ShardState>> shards;
  ShardPool* pool = nullptr;  // for work that must visit every shard
  // server.tls_*: null when the listener is plain. Its current() is taken
  // per accepted connection; a reload swaps it (tls/tls_credentials.hpp).
  std::unique_ptr<tls::TlsCredentials> tls;

  std::atomic<bool> draining{false};
  std::atomic<std::size_t> connections{0};
  // server.max_connections_per_ip: asked by the acceptor, released by the
  // sessions' leases (on their shards). Outlives every session.
  limits::ConnectionsPerIp per_ip;
  // client.publish_rate of HTTP publishes (sse/client_publish.hpp), per
  // user over every shard.
  limits::UserRates http_publish_rates;
  // proxy.max_in_flight, over every hook and shard; outlives every request.
  proxy::InFlightLimit proxy_in_flight;
  // proxy.forward_headers, parsed once (lower-case names).
  std::vector<std::string> forward_headers;

  // This node as the cluster and the server API's info name it
  // (cluster.node_id, or "node-" and a random id made at start), and when
  // it started.
  std::string node_id;
  std::int64_t started_unix_s = 0;
  // Runs its callback on shard `from` with the cluster's live nodes and
  // their stats as of the last heartbeat (broker/node_registry.hpp); null
  // with the embedded broker, where this node is the whole service.
  std::function<void(unsigned from, std::function<void(std::vector<broker::ClusterNode>)>)>
      cluster_nodes;
  // Puts a question to every other node of the cluster (broker/survey.hpp)
  // and runs its callback on shard `from` with their answers; null with
  // the embedded broker.
  std::function<void(unsigned from, std::string question,
                     std::function<void(broker::SurveyResult)>)>
      survey;
  // This node's figures now: census (client/node_census.hpp), start, version.
  [[nodiscard]] broker::NodeStats node_stats() const;

  // Runs `act` on every shard for each connection of `user` (only the one
  // with id `client` when it is not empty), then `done` (when given) on
  // `shard` with how many it acted on: those for which it returned true.
  // The server API's per-user methods, and the core's each_client_of.
  void for_each_client_of(unsigned shard, std::string user, std::string client,
                          std::function<bool(client::Client&)> act,
                          std::function<void(std::size_t)> done);

  // Responses by status class: [0] 1xx ... [4] 5xx.
  std::array<metrics::Counter*, 5> responses{};
  metrics::Counter* accepted = nullptr;
  metrics::Counter* rejected_limit = nullptr;
  metrics::Counter* rejected_per_ip = nullptr;
  metrics::Counter* tls_handshake_failures = nullptr;

  void count_response(unsigned status) {
    unsigned cls = status / 100;
    if (cls >= 1 && cls <= 5) responses[cls - 1]->inc();
  }
};

}  // namespace herald::gateway
