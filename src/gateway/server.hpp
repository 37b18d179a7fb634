// The network server: binds the listen address, accepts connections on one
// acceptor and deals them round-robin to the shards, where each connection
// then lives for good. Built-in routes: GET /healthz and GET /metrics.
//
// Lifecycle: construct, add routes, start(), ..., shutdown(). shutdown()
// stops accepting, turns /healthz to 503, closes idle keep-alive connections,
// lets requests in flight finish for up to options.shutdown_timeout, and then
// stops the shards.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/config/values.hpp"
#include "core/metrics/registry.hpp"
#include "gateway/api/api_action.hpp"
#include "gateway/broker/node_registry.hpp"
#include "gateway/codec/codec.hpp"
#include "gateway/http/router.hpp"
#include "gateway/options.hpp"
#include "match/store/store.hpp"

namespace herald::gateway {

class Server {
 public:
  // Throws std::runtime_error naming the setting when one cannot be used
  // (e.g. an unreadable auth.rsa_public_key_file).
  Server(Options options, metrics::Registry& registry);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Add routes before start(); the router is read-only once serving.
  http::HttpRouter& router();
  // Serves /api/keywords/* from `store`, exports its statistics, and
  // moderates publications of the namespaces whose `moderation` names
  // dictionaries of it. Call before start(); `store` must outlive the
  // server. Throws std::runtime_error naming the setting when a moderation
  // list is not valid.
  void add_keyword_api(match::store::Store& store);
  // Serves POST `path` (under /api/, key-checked) with an action of the
  // embedding application (api/http_api.hpp); call before start().
  void add_api_action(std::string path, api::ApiAction action);

  // Serves WebSocket upgrades on `path` in the protocol of the codecs
  // `make_codec` makes (one per shard; codec/codec.hpp), over the same
  // client core as /ws, which is Herald's own and always served. Call
  // before start(); throws std::runtime_error for a path served already
  // or past fanout::Message::kCodecSlots endpoints.
  void add_websocket_endpoint(std::string path, codec::CodecFactory make_codec);

  // Cluster mode: `fn` gets the live nodes of the cluster (this one
  // included) whenever they change, on a thread of the broker's. Set before
  // start(); never called in memory mode.
  void on_cluster_nodes(std::function<void(const std::vector<broker::ClusterNode>&)> fn);

  // Binds and starts the shard threads. Throws std::system_error whose
  // what() names the address and the reason (e.g. address already in use),
  // and std::runtime_error naming the setting when the cluster's Redis
  // refuses cluster.redis.username/password.
  void start();

  // Loads server.tls_cert_file/tls_key_file again (SIGHUP): connections
  // accepted from now on use them; open ones keep theirs. On failure the
  // error names the key and the file, and the old pair keeps serving.
  // Nothing to do (nullopt) when the listener is plain.
  std::optional<std::string> reload_tls();
  [[nodiscard]] bool tls() const;

  // The bound address (the real port when options.listen.port was 0).
  [[nodiscard]] config::Endpoint local_endpoint() const;
  [[nodiscard]] unsigned shard_count() const;
  [[nodiscard]] std::size_t connections() const;

  // Graceful stop, bounded by options.shutdown_timeout. Returns true when
  // every connection ended in time, false when some were cut. Idempotent.
  bool shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace herald::gateway
