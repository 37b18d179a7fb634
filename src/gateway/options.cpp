#include "gateway/options.hpp"

#include <thread>

#include "gateway/http/origin_policy.hpp"
#include "gateway/protocol/room_name.hpp"
#include "redis/connection_settings.hpp"

namespace herald::gateway {
namespace {

void register_room_options(config::Schema& s, const std::string& prefix, RoomOptions& o) {
  using std::chrono::milliseconds;
  auto key = [&](const char* name) { return prefix.empty() ? std::string(name) : prefix + name; };
  s.add_int(key("history_size"), o.history_size, 0, 1'000'000,
            "Publications kept per room for history and recovery (0: none)");
  s.add_duration(key("history_ttl"), o.history_ttl, milliseconds(1000),
                 milliseconds(30LL * 24 * 3'600'000), "How long a room keeps a publication");
  s.add_bool(key("publish"), o.publish, "Clients may publish (the server API always may)");
  s.add_bool(key("presence"), o.presence, "presence and presence_stats are answered");
  s.add_bool(key("join_leave"), o.join_leave, "Subscribers get join and leave pushes");
  s.add_int(key("join_leave_rate"), o.join_leave_rate, 1, 1'000'000,
            "join and leave pushes a room sends per second (burst the same) on each node; more "
            "are dropped and counted (herald_join_leave_dropped_total)");
  s.add_int(key("max_subscribers"), o.max_subscribers, 0, 100'000'000,
            "Subscribers a room holds at once (0: no limit)");
  s.add_size(key("max_publication_bytes"), o.max_publication_bytes, 1, 16 * 1024 * 1024,
             "Largest publication data (its JSON text), from clients and the API");
  s.add_string(key("moderation"), o.moderation.dictionaries,
               "Keyword dictionaries that moderate publications, comma-separated (empty: off); "
               "each keyword's action rejects, masks or flags",
               1024);
  s.add_bool(key("moderation_case_sensitive"), o.moderation.case_sensitive,
             "Moderation matches case exactly (default: Unicode case folding)");
  s.add_bool(key("moderation_whole_word"), o.moderation.whole_word,
             "Moderation matches whole words only (not inside a longer word)");
  s.add_bool(key("subscribe_proxy"), o.subscribe_proxy,
             "The backend (proxy.subscribe_url) allows or refuses each subscribe");
  s.add_bool(key("publish_proxy"), o.publish_proxy,
             "The backend (proxy.publish_url) sees each client publication first and may refuse "
             "or rewrite it");
  s.add_bool(key("client_membership"), o.client_membership,
             "Clients may join and leave rooms themselves (rooms.join, rooms.leave; memberships "
             "are kept only with state.dir); accepting an invitation needs no such leave");
}

}  // namespace

unsigned Options::shard_count() const {
  if (threads != 0) return threads;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

const RoomOptions& Options::room_options(std::string_view room) const {
  const std::string_view ns = protocol::room_namespace(room);
  if (!ns.empty()) {
    auto it = namespaces.find(ns);
    if (it != namespaces.end()) return it->second;
  }
  return rooms;
}

bool Options::dev_mode() const {
  if (auth.dev_mode == "on") return true;
  if (auth.dev_mode == "off") return false;
  return auth.hmac_secret.empty() && auth.rsa_public_key_file.empty() &&
         auth.ecdsa_public_key_file.empty() && auth.jwks_file.empty() && auth.jwks_url.empty() &&
         http::is_loopback_host(listen.host);
}

void register_options(config::Schema& s, Options& o) {
  using std::chrono::milliseconds;
  s.add_endpoint("server.listen", o.listen,
                 "Address for HTTP and WebSocket clients; port 0 picks a free port");
  s.add_int("server.threads", o.threads, 0, 256,
            "Shards (threads with their own event loop); 0 means one per core");
  s.add_int("server.max_connections", o.max_connections, 1, 10'000'000,
            "Connections held at once; more are answered 503 and closed");
  s.add_string("server.allowed_origins", o.allowed_origins,
               "Web origins (scheme://host[:port], comma-separated, or *) whose pages may open "
               "WebSockets and call the API, besides the server's own; others get 403",
               16 * 1024);
  s.add_int("server.max_connections_per_ip", o.max_connections_per_ip, 1, 10'000'000,
            "Connections held at once from one client address (IPv6: one /64); more are "
            "answered 503 and closed");
  s.add_bool("server.per_ip_exempt_loopback", o.per_ip_exempt_loopback,
             "Loopback clients (127.0.0.0/8, ::1: a local reverse proxy, local load tests) are "
             "not counted by server.max_connections_per_ip");
  s.add_duration("server.shutdown_timeout", o.shutdown_timeout, milliseconds(0),
                 milliseconds(600'000),
                 "On SIGTERM/SIGINT: how long to let open requests finish before exiting");
  s.add_string("server.tls_cert_file", o.tls.cert_file,
               "PEM file with the server's certificate followed by its chain; with "
               "server.tls_key_file, the listener serves https:// and wss:// only. SIGHUP "
               "reloads both without dropping connections");
  s.add_string("server.tls_key_file", o.tls.key_file,
               "PEM file with the private key of server.tls_cert_file");
  s.add_choice("server.tls_min_version", o.tls.min_version, {"1.2", "1.3"},
               "Oldest TLS version accepted");
  s.add_size("http.max_header_bytes", o.http.max_header_bytes, 1024, 1024 * 1024,
             "Largest request line plus headers; larger requests get 431");
  s.add_size("http.max_body_bytes", o.http.max_body_bytes, 0, 1024ull * 1024 * 1024,
             "Largest request body; larger requests get 413");
  s.add_duration("http.idle_timeout", o.http.idle_timeout, milliseconds(100),
                 milliseconds(3'600'000),
                 "Close a connection that sends nothing (or reads nothing) for this long");

  s.add_size("client.max_message_bytes", o.client.max_message_bytes, 256, 64ull * 1024 * 1024,
             "Largest WebSocket message a client may send; larger closes with 1009");
  s.add_size("client.max_queue_bytes", o.client.max_queue_bytes, 1024, 1024ull * 1024 * 1024,
             "Outbound backlog per client; over it the client is closed as a slow consumer (3002)");
  s.add_int("client.max_subscriptions", o.client.max_subscriptions, 1, 1'000'000,
            "Rooms one connection may subscribe to at once");
  s.add_int("client.max_pending_per_room", o.client.max_pending_per_room, 1, 10'000,
            "Subscribe/unsubscribe commands on one room waiting for its subscribe's answer; "
            "more get error 106");
  s.add_int("client.publish_rate", o.client.publish_rate, 1, 1'000'000,
            "Publishes per second per connection (burst of the same size); more get error 111");
  s.add_int("client.command_rate", o.client.command_rate, 1, 1'000'000,
            "Commands other than connect and publish per second per connection; more get "
            "error 111");
  s.add_int("client.command_burst", o.client.command_burst, 1, 1'000'000,
            "Commands (as client.command_rate counts them) a connection may send at once before "
            "the rate applies");
  s.add_duration("client.handshake_timeout", o.client.handshake_timeout, milliseconds(100),
                 milliseconds(600'000), "Time allowed for the WebSocket upgrade");
  s.add_duration("client.connect_timeout", o.client.connect_timeout, milliseconds(100),
                 milliseconds(600'000),
                 "Time allowed between the upgrade and the connect command (else 3004)");
  s.add_duration("client.idle_timeout", o.client.idle_timeout, milliseconds(200),
                 milliseconds(3'600'000),
                 "Ping a silent client at half this; close it when nothing came back by the end");
  s.add_duration("client.refresh_grace", o.client.refresh_grace, milliseconds(0),
                 milliseconds(3'600'000),
                 "How long past its token's exp a Centrifugo SDK client stays connected for its "
                 "refresh (sent when the token expires) to arrive; then closed (3005)");
  s.add_duration(
      "client.write_delay", o.client.write_delay, milliseconds(0), milliseconds(1000),
      "Hold outbound messages this long to batch them into one write (0: next loop turn)");
  s.add_bool("client.compression", o.client.compression,
             "Negotiate permessage-deflate (RFC 7692) with clients that offer it: each "
             "publication is compressed once for all of them; client.max_message_bytes bounds "
             "a compressed message once inflated");
  s.add_duration("client.sse_heartbeat", o.client.sse_heartbeat, milliseconds(100),
                 milliseconds(3'600'000),
                 "Send an SSE stream a comment when it was quiet this long (keeps proxies from "
                 "closing it)");

  s.add_int("rooms.max_rooms", o.max_rooms, 1, 100'000'000,
            "Rooms one node holds at once (memory: with subscribers or unexpired history; "
            "cluster: with local subscribers); a command that would open one more gets error 115");
  register_room_options(s, "rooms.", o.rooms);
  s.add_table_map("namespaces", [&o](const std::string& name, config::Schema& keys) {
    // A namespace starts from the [rooms] values, then its table overrides.
    RoomOptions& ns = o.namespaces.try_emplace(name, o.rooms).first->second;
    register_room_options(keys, "", ns);
  });

  s.add_string("auth.hmac_secret", o.auth.hmac_secret,
               "HS256/384/512 secret that signs connection tokens (JWT), at least 32 bytes "
               "(openssl rand -hex 32)");
  s.add_string("auth.rsa_public_key_file", o.auth.rsa_public_key_file,
               "PEM file with the RSA public key that verifies RS256/384/512 connection tokens");
  s.add_string("auth.ecdsa_public_key_file", o.auth.ecdsa_public_key_file,
               "PEM file with the ECDSA public key (P-256 or P-384) that verifies ES256 or "
               "ES384 connection tokens");
  s.add_string(
      "auth.jwks_file", o.auth.jwks_file,
      "JSON Web Key Set file ({\"keys\":[...]}, RSA and EC P-256/P-384 keys with a kid): a "
      "token whose header names a kid is verified with that key");
  s.add_string("auth.subscription_hmac_secret", o.auth.subscription.hmac_secret,
               "HS256/384/512 secret of subscription tokens alone (Centrifugo's "
               "client.subscription_token); with no auth.subscription_* key, subscription tokens "
               "are verified by the connection tokens' keys");
  s.add_string("auth.subscription_rsa_public_key_file", o.auth.subscription.rsa_public_key_file,
               "PEM RSA public key of subscription tokens alone (RS256/384/512)");
  s.add_string("auth.subscription_ecdsa_public_key_file", o.auth.subscription.ecdsa_public_key_file,
               "PEM ECDSA public key (P-256 or P-384) of subscription tokens alone");
  s.add_string("auth.subscription_jwks_file", o.auth.subscription.jwks_file,
               "JSON Web Key Set file of subscription tokens alone (tokens naming a kid)");
  s.add_string("auth.subscription_jwks_url", o.auth.subscription.jwks_url,
               "http(s) URL of the JSON Web Key Set of subscription tokens alone, kept fresh as "
               "auth.jwks_url is",
               2048);
  s.add_string("auth.jwks_url", o.auth.jwks_url,
               "http(s) URL of a JSON Web Key Set (an identity provider's jwks_uri), fetched at "
               "start, every auth.jwks_refresh, and again when a token names a kid it lacks",
               2048);
  s.add_string("auth.jwks_ca_file", o.auth.jwks_ca_file,
               "PEM file of the CAs an https auth.jwks_url's (or auth.subscription_jwks_url's) "
               "certificate must chain to; empty: the system's CAs");
  s.add_duration("auth.jwks_refresh", o.auth.jwks_refresh, milliseconds(1000),
                 milliseconds(86'400'000),
                 "How often auth.jwks_url (and auth.subscription_jwks_url) is fetched again");
  s.add_string("auth.audience", o.auth.audience,
               "Connection tokens must carry this audience (aud, a string or an array holding "
               "it); empty: aud is not checked",
               1024);
  s.add_string("auth.issuer", o.auth.issuer,
               "Connection tokens must carry this issuer (iss); empty: iss is not checked", 1024);
  s.add_string("auth.audience_regex", o.auth.audience_regex,
               "Instead of auth.audience: tokens must carry an audience (aud) this pattern matches "
               "somewhere (Go's regexp syntax, as Centrifugo's audience_regex: anchor it with ^ "
               "and $); empty: off",
               1024);
  s.add_string("auth.issuer_regex", o.auth.issuer_regex,
               "Instead of auth.issuer: tokens must carry an issuer (iss) this pattern matches "
               "somewhere (Go's regexp syntax, as Centrifugo's issuer_regex: anchor it with ^ and "
               "$); empty: off",
               1024);
  s.add_choice("auth.dev_mode", o.auth.dev_mode, {"auto", "on", "off"},
               "Insecure dev mode (connect as any user, no token): auto means on only with no "
               "token key and a loopback listen address");
  s.add_string("api.key", o.api.key,
               "Key for the HTTP server API (Authorization: apikey KEY); empty: API only in dev "
               "mode");
  s.add_bool("metrics.require_key", o.metrics.require_key,
             "/metrics asks for api.key (Authorization: apikey KEY) like the server API");
  s.add_bool("web.enabled", o.web.enabled,
             "Serve the web app (chat demo and room list) at / from the binary");

  constexpr proxy::PerHook<const char*> kUrlHelp = [] {
    proxy::PerHook<const char*> h;
    h[proxy::HookKind::connect] =
        "Backend URL (http://host[:port]/path) a connect without a token is POSTed to; the "
        "backend names the user (empty: off)";
    h[proxy::HookKind::subscribe] =
        "Backend URL asked to allow each subscribe in a namespace with subscribe_proxy = true "
        "(empty: off)";
    h[proxy::HookKind::publish] =
        "Backend URL shown each client publication in a namespace with publish_proxy = true; it "
        "may refuse or rewrite it (empty: off)";
    h[proxy::HookKind::rpc] =
        "Backend URL the rpc command is POSTed to; empty: rpc is off (error 108)";
    h[proxy::HookKind::refresh] =
        "Backend URL asked, when a connection's expiry (token exp, connect expire_at) comes, "
        "to extend or end it; empty: the connection is closed then (3003)";
    return h;
  }();
  for (proxy::HookKind hook : proxy::kAllHooks) {
    s.add_string(std::string(proxy::hook_url_key(hook)), o.proxy.urls[hook], kUrlHelp[hook], 2048);
  }
  s.add_string("proxy.forward_headers", o.proxy.forward_headers,
               "Headers of the client's HTTP upgrade copied to the connect and refresh hooks "
               "(comma-separated); X-Forwarded-For is always added",
               1024);
  s.add_duration("proxy.timeout", o.proxy.timeout, milliseconds(10), milliseconds(60'000),
                 "A backend request (connect, write, whole answer) unanswered this long fails "
                 "with error 116 (timeout)");
  s.add_int("proxy.max_in_flight", o.proxy.max_in_flight, 1, 1'000'000,
            "Backend requests at once on this node; one more fails at once with error 116 "
            "(busy)");

  ClusterOptions& c = o.cluster;
  s.add_choice("cluster.mode", c.mode, {"memory", "redis"},
               "Where rooms live: memory (this process) or redis (shared by every node pointed "
               "at one Redis: cluster mode)");
  redis::register_topology_settings(s, "cluster.redis", "cluster.mode = redis", "rooms",
                                    c.redis_topology);
  s.add_choice("cluster.redis.new_history", c.new_history, {"new_epoch", "continue"},
               "A room whose Redis history changed (failover or restart: a new replication ID) "
               "may have lost its last publications: new_epoch tells its subscribers "
               "(recovered: false); continue trusts the data");
  s.add_int("cluster.redis.wait_replicas", c.wait_replicas, 0, 100,
            "Acknowledge a publish only once this many replicas have it (WAIT in the same "
            "round trip); fewer within wait_timeout: error 114. 0: when the master has it");
  s.add_duration("cluster.redis.wait_timeout", c.wait_timeout, milliseconds(1),
                 milliseconds(60'000),
                 "How long a publish waits for cluster.redis.wait_replicas (shorter than "
                 "cluster.redis.command_timeout)");
  redis::register_connection_settings(s, "cluster.redis", "the cluster's Redis",
                                      "cluster.mode = redis", c.redis);
  s.add_string("cluster.key_prefix", c.key_prefix,
               "Prefix of every Redis key and channel of the cluster's rooms", 256);
  s.add_duration("cluster.stream_ttl", c.stream_ttl, milliseconds(1000),
                 milliseconds(365LL * 24 * 3'600'000),
                 "A room's epoch and offset are kept this long after its last publish or "
                 "subscribe; then the room starts a new epoch");
  s.add_duration("cluster.presence_ttl", c.presence_ttl, milliseconds(300), milliseconds(3'600'000),
                 "Presence entries of a node that stopped refreshing them (it died) expire "
                 "after this long; nodes refresh at a third of it");
  s.add_int("cluster.max_pending", c.max_pending, 1, 10'000'000,
            "Publications held behind a gap while the node fetches it; more reset the room's "
            "local subscribers (disconnect 3005)");
  s.add_string("cluster.node_id", c.node_id,
               "This node's name in the node registry and the discovery zone (a DNS label); "
               "empty: node- and random hex",
               63);
  s.add_string("cluster.advertise", c.advertise,
               "Address (IP) other nodes and the discovery zone give clients for this node; "
               "empty: the listen address",
               255);
  s.add_duration("cluster.heartbeat_interval", c.heartbeat_interval, milliseconds(50),
                 milliseconds(600'000), "How often a node renews its entry in the node registry");
  s.add_duration("cluster.node_ttl", c.node_ttl, milliseconds(100), milliseconds(3'600'000),
                 "A node that stopped heartbeating leaves the registry (and the discovery zone) "
                 "after this long");
  StateOptions& st = o.state;
  s.add_string("state.dir", st.dir,
               "Directory of the per-user state (room memberships, read markers), kept across "
               "restarts; created if missing. Empty: none kept (the member API answers 501)",
               4096);
  s.add_size("state.max_bytes", st.max_bytes, 64 * 1024, 1024ull * 1024 * 1024 * 1024,
             "Most the state may take on disk (its map size); a change past it is refused");
  s.add_bool("state.sync", st.sync,
             "Flush each commit to the disk (survives power loss); off: commits reach the OS "
             "and survive the process being killed");
  s.add_int("state.max_rooms_per_user", st.max_rooms_per_user, 1, 10'000'000,
            "Rooms one user may be a member of; one more is refused");
  s.add_int("state.max_members_per_room", st.max_members_per_room, 1, 100'000'000,
            "Members one room may have; one more is refused");
  s.add_duration("state.max_delay", st.max_delay, milliseconds(0), milliseconds(10'000),
                 "Changes are committed in batches, each within this long of its first change");
  s.add_int("state.max_queue", st.max_queue, 1, 100'000'000,
            "Changes waiting to be committed; one more is refused (503) until the disk catches "
            "up");
  s.add_int("state.max_mentions", st.max_mentions, 0, 1000,
            "Users one publication's @mentions are kept for (each a write); 0: none kept");
}

}  // namespace herald::gateway
