// What the client core reads of the server it runs in, and nothing more:
// the options, the broker, the token key, the backend hooks and the
// connection metrics (CoreContext, one per process), and one shard's hub,
// backend clients and registry of clients (ShardCore, one per shard).
//
// Why a context of its own rather than the server's state: the core sits
// under the transports, and the server's state (server_state.hpp) holds
// theirs too (the WebSocket write cork, the HTTP sessions, the router, the
// TLS credentials). A core that took the server's state would include, and
// could touch, every transport above it. The server's state extends these
// two (ServerState is a CoreContext, ShardState a ShardCore), so the
// composition hands the core its part by reference, and a test builds the
// core on these alone.
//
// Thread rules: CoreContext is read-only once the server has started, but
// for `stopped` and the counters (atomic); ShardCore is shard-local,
// touched only from its shard's thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>

#include "gateway/auth/token.hpp"
#include "gateway/broker/broker.hpp"
#include "gateway/client/connection_metrics.hpp"
#include "gateway/client/node_census.hpp"
#include "gateway/fanout/hub.hpp"
#include "gateway/options.hpp"
#include "gateway/proxy/backend_client.hpp"
#include "gateway/proxy/hook.hpp"
#include "state/membership_store.hpp"
#include "state/writer.hpp"

namespace herald::gateway::client {

class Client;

struct CoreContext {
  explicit CoreContext(const Options& o) : options(o) {}

  const Options& options;
  broker::Broker* broker = nullptr;
  std::unique_ptr<auth::TokenVerifier> verifier;  // null without auth.hmac_secret
  // auth.subscription_*: subscription tokens' own keys; null when they
  // share the connection tokens' (subscription_tokens()).
  std::unique_ptr<auth::TokenVerifier> subscription_verifier;
  // What verifies a subscription token: its own keys, or the connection
  // tokens'; null with neither.
  [[nodiscard]] const auth::TokenVerifier* subscription_tokens() const {
    return subscription_verifier ? subscription_verifier.get() : verifier.get();
  }
  bool dev_mode = false;
  // The backend hooks (proxy.<hook>_url); null where the URL is empty.
  proxy::PerHook<std::unique_ptr<proxy::Hook>> hooks;
  ConnectionMetrics gw;
  // The node's connected users and subscribed rooms (the server API's info
  // and channels, the cluster heartbeat).
  NodeCensus census;
  // The users' room memberships (state.dir, issue 43): null without it.
  // Reads run on the shards; changes go through the writer.
  const state::MembershipStore* memberships = nullptr;
  state::Writer* membership_writer = nullptr;
  // Runs `act` on their shards for every connection of `user` on this
  // node (what one connection's rooms.read tells the others). Set by the
  // server; empty in a core built alone.
  std::function<void(const std::string& user, std::function<void(Client&)> act)> each_client_of;
  // Runs `fn` on shard `shard`'s thread: how an answer from another thread
  // (the membership writer's) comes back. Set by the server with the above.
  std::function<void(unsigned shard, std::function<void()> fn)> run_on_shard;
  // Shards stopping: no more broker calls, no more cross-shard posts.
  std::atomic<bool> stopped{false};
};

struct ShardCore {
  explicit ShardCore(unsigned shard_index) : index(shard_index) {}

  const unsigned index;  // the shard's place in the pool, as the broker names it
  // Every client (WebSocket, SSE and HTTP publish alike), told on shutdown
  // and found by a per-user disconnect.
  std::unordered_set<Client*> clients;
  fanout::Hub hub;  // room -> local subscribers
  // Posts to each hook's proxy.<hook>_url; null where it is empty. Stopped
  // (idle connections closed) before the io_context goes.
  proxy::PerHook<std::unique_ptr<proxy::BackendClient>> backends;
};

}  // namespace herald::gateway::client
