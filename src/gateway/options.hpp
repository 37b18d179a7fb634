// Settings of the gateway, with their defaults. register_options() publishes
// them as configuration keys (file, HERALD_* environment, flags); the table
// in docs/configuration.md lists them all.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"
#include "gateway/proxy/hook_kind.hpp"
#include "redis/options.hpp"
#include "redis/topology.hpp"

namespace herald::gateway {

struct HttpLimits {
  std::uint64_t max_header_bytes = 8 * 1024;       // request line + headers
  std::uint64_t max_body_bytes = 1024 * 1024;      // request body
  std::chrono::milliseconds idle_timeout{30'000};  // per read/write, and keep-alive idle
};

// Per-connection limits for WebSocket clients.
struct ClientLimits {
  std::uint64_t max_message_bytes = 64 * 1024;  // one incoming frame
  std::uint64_t max_queue_bytes = 1024 * 1024;  // outbound backlog before slow-consumer close
  std::uint32_t max_subscriptions = 128;
  // Commands on one room held while its subscribe is with the broker
  // (answered in order when it answers; one more gets 106).
  std::uint32_t max_pending_per_room = 16;
  std::uint32_t publish_rate = 50;  // publishes per second (token bucket, burst = rate)
  // Every other command after connect (subscribe, history, presence, ping,
  // ...): a token bucket of command_rate a second holding command_burst, so
  // a client may resubscribe its rooms at once on reconnect but not keep
  // its broker busy (each such command is a Redis round trip in cluster
  // mode).
  std::uint32_t command_rate = 100;
  std::uint32_t command_burst = 1000;
  std::chrono::milliseconds handshake_timeout{10'000};  // WebSocket upgrade
  std::chrono::milliseconds connect_timeout{10'000};    // until the connect command
  std::chrono::milliseconds idle_timeout{30'000};       // pings at half, close at full
  // How long past its token's exp a client of a protocol whose SDK sends
  // refresh only when the token expires (Centrifugo's) stays connected,
  // for that refresh to arrive (Centrifugo's client.expired_close_delay).
  std::chrono::milliseconds refresh_grace{25'000};
  std::chrono::milliseconds write_delay{0};  // 0: flush every loop turn; >0: coalesce this long
  // Negotiate permessage-deflate (RFC 7692) with clients that offer it.
  bool compression = false;
  // SSE streams (gateway/sse/): a comment this often on a quiet stream, so
  // proxies keep it open and a dead peer is found.
  std::chrono::milliseconds sse_heartbeat{15'000};

  // A WebSocket's keep-alive period: a ping each period (to a silent
  // client, or always where the protocol pings itself), and a close when a
  // whole period after a ping brings nothing back.
  [[nodiscard]] std::chrono::milliseconds keepalive_period() const { return idle_timeout / 2; }
};

// Moderation of the publications of a room (gateway/moderation/): the
// keyword dictionaries searched, and how. Off while `dictionaries` is empty.
struct ModerationOptions {
  std::string dictionaries;     // comma-separated dictionary names, e.g. "profanity,spam"
  bool case_sensitive = false;  // false: Unicode case folding ("Darn" finds "darn")
  bool whole_word = false;      // true: "ass" does not match inside "class"
};

// What a room allows. [rooms] sets the defaults; [namespaces.NAME] overrides
// them for rooms named "NAME:...".
struct RoomOptions {
  std::uint32_t history_size = 100;                // publications kept per room (0: none)
  std::chrono::milliseconds history_ttl{300'000};  // how long they are kept
  bool publish = true;                             // clients may publish (the API always may)
  bool presence = true;                            // presence and presence_stats answer
  bool join_leave = false;                         // push join/leave to subscribers
  // join and leave pushes a room sends per second (burst the same), on
  // each node; more are dropped (counted), so one client churning
  // subscribe/unsubscribe cannot multiply its commands by the room's size.
  std::uint32_t join_leave_rate = 20;
  std::uint32_t max_subscribers = 0;                // 0: no limit
  std::uint64_t max_publication_bytes = 16 * 1024;  // a publication's data
  ModerationOptions moderation;
  // The backend decides each subscribe (proxy.subscribe_url) / sees and may
  // rewrite or refuse each client publication (proxy.publish_url) in this
  // namespace (docs/backend.md).
  bool subscribe_proxy = false;
  bool publish_proxy = false;
  // Clients may join and leave the rooms of this namespace themselves
  // (rooms.join, rooms.leave: memberships kept in state.dir). Accepting an
  // invitation needs no such leave.
  bool client_membership = false;
};

// The keys that verify one kind of token: a secret, key files and a JWK
// set's URL, each empty when unset.
struct TokenKeys {
  std::string hmac_secret;
  std::string rsa_public_key_file;
  std::string ecdsa_public_key_file;
  std::string jwks_file;
  std::string jwks_url;  // fetched and kept fresh (auth/jwks_fetcher.hpp)
  [[nodiscard]] bool any() const {
    return !hmac_secret.empty() || !rsa_public_key_file.empty() || !ecdsa_public_key_file.empty() ||
           !jwks_file.empty() || !jwks_url.empty();
  }
};

struct AuthOptions {
  std::string hmac_secret;            // HS256 key for connection tokens
  std::string rsa_public_key_file;    // PEM public key for RS256/384/512 tokens
  std::string ecdsa_public_key_file;  // PEM public key (P-256 or P-384) for ES256/ES384 tokens
  std::string jwks_file;              // JWK set: tokens with a kid (auth/jwks.hpp)
  std::string jwks_url;               // the same from a URL (auth/jwks_fetcher.hpp)
  std::string jwks_ca_file;  // PEM CAs for an https jwks_url (either kind's); empty: the system's
  std::chrono::milliseconds jwks_refresh{3'600'000};
  // Centrifugo's client.subscription_token: keys of subscription tokens
  // alone (auth.subscription_*); with none set, subscription tokens are
  // verified by the connection tokens' keys above.
  TokenKeys subscription;
  // The connection tokens' keys above, as TokenKeys.
  [[nodiscard]] TokenKeys connection_keys() const {
    return {hmac_secret, rsa_public_key_file, ecdsa_public_key_file, jwks_file, jwks_url};
  }
  // A token must name this audience (aud) / come from this issuer (iss);
  // empty: not checked. Or name an audience / come from an issuer that
  // matches the pattern (Go's regexp syntax: auth/claim_pattern.hpp);
  // one of each pair at most.
  std::string audience;
  std::string issuer;
  std::string audience_regex;
  std::string issuer_regex;
  // "auto": dev mode when no token key is set and the server listens on
  // loopback only; "on" / "off" force it.
  std::string dev_mode = "auto";
};

// Shortest auth.hmac_secret the server starts with: HS256's key should be
// as long as its hash (RFC 7518 3.2), and a shorter, typed secret can be
// found by brute force from one captured token. Not configurable.
inline constexpr std::size_t kMinHmacSecretBytes = 32;

// TLS on the listener (tls/tls_credentials.hpp): with both files set, the
// port serves https:// and wss:// only.
struct TlsOptions {
  std::string cert_file;  // PEM: the certificate, then its chain
  std::string key_file;   // PEM: the private key
  std::string min_version = "1.2";
  [[nodiscard]] bool enabled() const { return !cert_file.empty() || !key_file.empty(); }
};

struct WebOptions {
  bool enabled = true;  // serve the web app (web/, embedded) at "/"
};

// Cluster mode (docs/cluster.md): "memory" keeps every room in this
// process; "redis" shares rooms, history and presence with every node
// pointed at the same Redis.
struct ClusterOptions {
  std::string mode = "memory";
  // Where the rooms' Redis is: one server, servers by consistent hash, a
  // Redis Cluster, or a Sentinel-watched master (redis/topology.hpp).
  redis::TopologySettings redis_topology;
  redis::Options redis;  // its host and port come from redis_topology
  // What a room whose Redis history changed (a failover, a restart: a new
  // master_replid) becomes: "new_epoch" (its subscribers are told, since
  // its last publications may be lost) or "continue" (trust the data:
  // right only when nothing can be lost, e.g. appendfsync always and no
  // replicas). redis_schema.hpp, docs/cluster.md "Failover".
  std::string new_history = "new_epoch";
  // Durability: a publish is acknowledged only once this many replicas
  // have it (WAIT, in the publish's round trip), else refused with 114.
  std::uint32_t wait_replicas = 0;
  std::chrono::milliseconds wait_timeout{500};
  std::string key_prefix = "herald:";
  // A room's epoch and top offset outlive its history by this much (renewed
  // by every publish and subscribe); after it the room starts a new epoch.
  std::chrono::milliseconds stream_ttl{86'400'000};
  // A node's presence entries expire this long after its last refresh (it
  // refreshes at a third of it): the bound on a dead node's ghosts.
  std::chrono::milliseconds presence_ttl{30'000};
  // Publications a node holds behind a gap while it fetches the gap; past
  // it the room's local subscribers are reset (3005).
  std::uint32_t max_pending = 10'000;
  // The node registry (discovery zone): this node's name (a DNS label;
  // empty: "node-" and random hex), the address clients should use (empty:
  // the listen address), how often it heartbeats, and how long a silent
  // node stays listed.
  std::string node_id;
  std::string advertise;
  std::chrono::milliseconds heartbeat_interval{1000};
  std::chrono::milliseconds node_ttl{3000};
};

// The application backend (docs/backend.md): hooks heraldd POSTs JSON to,
// each off while its URL is empty.
struct ProxyOptions {
  // proxy.<hook>_url, one per hook (proxy/hook_kind.hpp); empty: that hook
  // is off (rpc then answers 108; connect needs a token or dev mode; a
  // namespace may not set subscribe_proxy or publish_proxy without its URL).
  proxy::PerHook<std::string> urls;
  // Request headers of the client's HTTP upgrade copied into the connect
  // and refresh hooks' "headers" (comma-separated, case-insensitive);
  // X-Forwarded-For is always added, with the client's address appended.
  std::string forward_headers = "Cookie, Authorization, X-Real-Ip";
  // One request's deadline: connect, write and the whole answer.
  std::chrono::milliseconds timeout{1000};
  // Requests to the backend at once on this node; one more fails at once
  // with 116 (busy) rather than waiting (proxy/in_flight_limit.hpp).
  std::uint32_t max_in_flight = 1000;
};

struct ApiOptions {
  std::string key;  // "Authorization: apikey <key>" on /api/*; empty: dev mode only
};

struct MetricsOptions {
  bool require_key = false;  // /metrics asks for api.key like /api/*
};

// What is kept per user across connections and restarts (src/state,
// docs/plans/room-state.md): room memberships and read markers. Off while
// `dir` is empty.
struct StateOptions {
  std::string dir;
  std::uint64_t max_bytes = std::uint64_t{1} << 30;  // the store's map: a hard limit
  bool sync = false;  // fsync each commit (power loss), not only reach the OS (SIGKILL)
  std::uint32_t max_rooms_per_user = 1000;
  std::uint32_t max_members_per_room = 100'000;
  std::chrono::milliseconds max_delay{10};  // a batch of changes is committed within this
  std::uint32_t max_queue = 100'000;        // changes waiting for the writer
  // Users one publication's mentions are kept for (a write each): a
  // publication costs at most this + 1 changes whatever the room's size.
  std::uint32_t max_mentions = 20;
};

struct Options {
  config::Endpoint listen{"127.0.0.1", 8080};
  unsigned threads = 0;  // 0: one shard per core
  std::uint32_t max_connections = 100'000;
  // Web origins whose pages may connect and call the API, besides the
  // server's own (gateway/http/origin_policy.hpp); "*" allows any.
  std::string allowed_origins;
  // Connections per client address (IPv6: per /64); loopback is exempt
  // while per_ip_exempt_loopback (limits/connections_per_ip.hpp says why).
  std::uint32_t max_connections_per_ip = 256;
  bool per_ip_exempt_loopback = true;
  // Rooms this node holds at once (limits/room_budget.hpp); one more is
  // refused with 115.
  std::uint32_t max_rooms = 100'000;
  std::chrono::milliseconds shutdown_timeout{10'000};
  TlsOptions tls;
  HttpLimits http;
  ClientLimits client;
  RoomOptions rooms;
  std::map<std::string, RoomOptions, std::less<>> namespaces;
  AuthOptions auth;
  ApiOptions api;
  MetricsOptions metrics;
  WebOptions web;
  ClusterOptions cluster;
  ProxyOptions proxy;
  StateOptions state;

  // threads, with 0 resolved to the number of cores (at least 1).
  [[nodiscard]] unsigned shard_count() const;
  // The options for a room: its namespace's if configured, else [rooms].
  [[nodiscard]] const RoomOptions& room_options(std::string_view room) const;
  // Whether insecure dev mode is on (see AuthOptions::dev_mode).
  [[nodiscard]] bool dev_mode() const;
};

void register_options(config::Schema& schema, Options& options);

}  // namespace herald::gateway
