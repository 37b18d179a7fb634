#include "gateway/server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/write.hpp>

#include <fstream>
#include <future>
#include <iterator>
#include <sstream>
#include <system_error>
#include <thread>

#include "core/log.hpp"
#include "core/random.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/api/channels.hpp"
#include "gateway/api/http_api.hpp"
#include "gateway/api/keyword_api.hpp"
#include "gateway/api/membership_api.hpp"
#include "gateway/auth/jwks.hpp"
#include "gateway/auth/jwks_fetcher.hpp"
#include "gateway/broker/memory_broker.hpp"
#include "gateway/broker/redis_broker.hpp"
#include "gateway/client/client.hpp"
#include "gateway/codec/centrifugo_json.hpp"
#include "gateway/codec/herald_json.hpp"
#include "gateway/http_session.hpp"
#include "gateway/membership/mentioning_broker.hpp"
#include "gateway/moderation/moderating_broker.hpp"
#include "gateway/moderation/moderator.hpp"
#include "gateway/server_state.hpp"
#include "gateway/shard_pool.hpp"
#include "gateway/sse/client_publish.hpp"
#include "gateway/ws/write_cork.hpp"
#include "web/assets.hpp"

namespace herald::gateway {
namespace asio = boost::asio;
namespace beast_http = boost::beast::http;
using asio::ip::tcp;

struct Server::Impl {
  Impl(Options o, metrics::Registry& r)
      : options(std::move(o)), state(options, r), pool(options.shard_count()) {}
  ~Impl() {
    // Timers before their io_contexts (the pool), which go before the shard
    // state that sessions still referenced by pending handlers use.
    for (auto& shard : state.shards) {
      shard->cork->stop();
      for (proxy::HookKind hook : proxy::kAllHooks) {
        if (shard->backends[hook]) shard->backends[hook]->stop();
      }
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // Declaration order is destruction order reversed: the pool (and with it
  // any session still referenced by a pending handler) goes before state.
  Options options;
  ServerState state;
  ShardPool pool;
  // The per-user state (state.dir; null without it) and its writer, which
  // goes first: its last answers are posted to the shards, whose contexts
  // must still exist, and call the mentioning broker (which wraps the
  // broker when state.dir is set; state.broker then points at it).
  std::unique_ptr<state::MembershipStore> membership_store;
  std::unique_ptr<membership::MentioningBroker> mentioning_broker;
  std::unique_ptr<state::Writer> membership_writer;
  std::unique_ptr<broker::Broker> broker;
  // The same object as `broker` when it is the cluster's (cluster.mode =
  // redis), kept typed from its construction for what only it has: the
  // start-up wait for Redis and the node registry. nullptr otherwise.
  broker::RedisBroker* cluster_broker = nullptr;
  // Set by add_keyword_api(); state.broker then points at moderating_broker.
  std::unique_ptr<moderation::Moderator> moderator;
  std::unique_ptr<moderation::ModeratingBroker> moderating_broker;
  // One per JWK set URL (auth.jwks_url, auth.subscription_jwks_url).
  std::vector<std::unique_ptr<auth::JwksFetcher>> jwks_fetchers;
  std::unique_ptr<tcp::acceptor> acceptor;  // lives on shard 0
  std::unique_ptr<asio::steady_timer> accept_retry;
  std::function<void(const std::vector<broker::ClusterNode>&)> on_nodes;
  unsigned next_shard = 0;
  bool started = false;
  bool stopped = false;

  // Accepts per wake-up beyond the first: bounds the time one turn of
  // shard 0 spends accepting.
  static constexpr int kAcceptBatch = 256;
  // One Hook per proxy.<hook>_url set and its BackendClient on every
  // shard; throws naming the key when a URL is bad or a namespace asks for
  // a hook whose URL is empty.
  void make_backend_hooks(metrics::Registry& registry);
  // The constructor's steps after the shards and credentials, in order:
  // the gateway's and connections' metrics, the broker (memory or Redis,
  // wrapped for moderation later), the HTTP routes (/healthz, /metrics,
  // the API, SSE publish, the web app).
  void register_metrics(metrics::Registry& registry);
  void make_broker(metrics::Registry& registry);
  // Opens the state store and its writer when state.dir is set; throws
  // naming the setting when it cannot.
  void open_state();
  // For each JWK set URL (`option` names it) of `verifier`'s keys: the
  // fetcher, its first fetch (a failure is logged and retried; the server
  // starts), and its refresh thread.
  void fetch_jwks(const std::string& option, const std::string& url, auth::TokenVerifier* verifier);
  void register_routes(metrics::Registry& registry);
  // Server::start's steps, in order: refuse a moderation config with no
  // keyword store; bind the listener; make every shard's codecs; in
  // cluster mode wait for Redis and register this node.
  void refuse_unmoderated() const;
  void listen();
  void make_codecs();
  void join_cluster(const config::Endpoint& bound);
  void accept();
  void admit(tcp::socket socket, ShardPool::Shard& target);
  // Writes `response` (a whole HTTP response) and closes the socket.
  void reject(tcp::socket socket, asio::io_context& ctx, const std::string& response);
};

namespace {

// The JWK set of `option` (auth.jwks_file or auth.subscription_jwks_file)
// at `path` (its text `json`), with a log line per key left out; throws
// std::runtime_error naming the option and the key.
std::shared_ptr<const auth::Jwks> read_jwks(const std::string& option, const std::string& path,
                                            const std::string& json) {
  std::vector<std::string> skipped;
  try {
    auto set = std::make_shared<const auth::Jwks>(auth::Jwks::parse(json, &skipped));
    for (const std::string& why : skipped)
      log::warn("jwks key left out", {{"file", path}, {"key", why}});
    log::info("jwks loaded", {{"file", path}, {"keys", set->size()}});
    return set;
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(option + ": '" + path + "': " + e.what());
  }
}

// The pattern of option `name` (auth.issuer_regex or auth.audience_regex),
// nullopt when it is empty; throws std::runtime_error naming the option
// when `exact` (the option without _regex) is set too, or the pattern does
// not compile.
std::optional<auth::ClaimPattern> claim_pattern(const std::string& name, const std::string& pattern,
                                                const std::string& exact) {
  if (pattern.empty()) return std::nullopt;
  const std::string exact_name = name.substr(0, name.size() - std::string("_regex").size());
  if (!exact.empty()) {
    throw std::runtime_error(name + " and " + exact_name +
                             " are both set: keep one (the pattern, or the exact value)");
  }
  auto compiled = auth::ClaimPattern::compile(pattern);
  if (auto* why = std::get_if<std::string>(&compiled)) {
    throw std::runtime_error(name + ": '" + pattern + "' is not a pattern: " + *why);
  }
  return std::get<auth::ClaimPattern>(std::move(compiled));
}

// What every token's aud and iss must be (auth.audience, auth.issuer) or
// match (auth.audience_regex, auth.issuer_regex).
auth::Expected expected_claims(const AuthOptions& keys) {
  return {keys.audience, keys.issuer,
          claim_pattern("auth.audience_regex", keys.audience_regex, keys.audience),
          claim_pattern("auth.issuer_regex", keys.issuer_regex, keys.issuer)};
}

// The token verifier of `keys` (their options named `prefix` +
// "hmac_secret" and so on: "auth." or "auth.subscription_"); nullptr when
// none is set (a JWK set URL's keys come later, from its fetcher). Throws
// std::runtime_error naming the key when the secret is too short or a key
// file cannot be read or used.
std::unique_ptr<auth::TokenVerifier> make_token_verifier(const TokenKeys& keys,
                                                         const std::string& prefix,
                                                         const auth::Expected& expected) {
  if (!keys.hmac_secret.empty() && keys.hmac_secret.size() < kMinHmacSecretBytes) {
    throw std::runtime_error(
        prefix + "hmac_secret is " + std::to_string(keys.hmac_secret.size()) +
        " bytes; HS256 needs at least " + std::to_string(kMinHmacSecretBytes) +
        " (a short secret can be guessed from one token): generate one with `openssl rand -hex "
        "32` and give it to both heraldd and whatever signs the tokens");
  }
  // The PEM text of a key file option ("" when unset).
  auto read_key = [](const std::string& option, const std::string& path) {
    if (path.empty()) return std::string();
    std::ifstream in(path);
    if (!in) throw std::runtime_error(option + ": cannot read '" + path + "'");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string rsa = read_key(prefix + "rsa_public_key_file", keys.rsa_public_key_file);
  const std::string ecdsa = read_key(prefix + "ecdsa_public_key_file", keys.ecdsa_public_key_file);
  const std::string jwks = read_key(prefix + "jwks_file", keys.jwks_file);
  if (!keys.any()) return nullptr;
  try {
    auto verifier = std::make_unique<auth::TokenVerifier>(keys.hmac_secret, rsa, expected, ecdsa);
    if (!jwks.empty()) verifier->set_jwks(read_jwks(prefix + "jwks_file", keys.jwks_file, jwks));
    return verifier;
  } catch (const auth::KeyError& e) {
    const bool is_rsa = e.key == auth::KeyError::Key::rsa;
    throw std::runtime_error(
        prefix + (is_rsa ? "rsa_public_key_file" : "ecdsa_public_key_file") + ": '" +
        (is_rsa ? keys.rsa_public_key_file : keys.ecdsa_public_key_file) + "' is " + e.what());
  }
}

}  // namespace

Server::Server(Options options, metrics::Registry& registry)
    : impl_(std::make_unique<Impl>(std::move(options), registry)) {
  auto& st = impl_->state;
  for (unsigned i = 0; i < impl_->pool.size(); ++i) {
    st.shards.push_back(
        std::make_unique<ShardState>(i, impl_->pool[i].ctx, impl_->options.client.write_delay));
  }
  // Herald's own protocol on /ws: its codec slot 0 is the canonical form.
  add_websocket_endpoint("/ws", [max = impl_->options.client.max_message_bytes] {
    return std::make_unique<codec::HeraldJson>(max);
  });
  // Centrifugo's client protocol where its SDKs look for it
  // (docs/centrifugo.md).
  add_websocket_endpoint("/connection/websocket",
                         [max = impl_->options.client.max_message_bytes,
                          ping = impl_->options.client.keepalive_period()] {
                           return std::make_unique<codec::CentrifugoJson>(max, ping);
                         });
  st.dev_mode = impl_->options.dev_mode();
  const AuthOptions& keys = impl_->options.auth;
  const auth::Expected expected = expected_claims(keys);
  st.verifier = make_token_verifier(keys.connection_keys(), "auth.", expected);
  st.subscription_verifier = make_token_verifier(keys.subscription, "auth.subscription_", expected);
  impl_->fetch_jwks("auth.jwks_url", keys.jwks_url, st.verifier.get());
  impl_->fetch_jwks("auth.subscription_jwks_url", keys.subscription.jwks_url,
                    st.subscription_verifier.get());
  if (impl_->options.tls.enabled())
    st.tls = std::make_unique<tls::TlsCredentials>(impl_->options.tls);
  impl_->make_backend_hooks(registry);
  impl_->register_metrics(registry);
  impl_->make_broker(registry);
  impl_->open_state();
  impl_->register_routes(registry);
}

void Server::Impl::register_metrics(metrics::Registry& registry) {
  auto& st = state;
  st.gw = client::ConnectionMetrics::registered(registry);
  registry.callback("herald_queue_bytes", "Bytes queued for WebSocket clients", [&st] {
    std::int64_t total = 0;
    for (const auto& sh : st.shards) total += sh->queued_bytes.load(std::memory_order_relaxed);
    return static_cast<double>(total);
  });

  for (unsigned c = 1; c <= 5; ++c) {
    st.responses[c - 1] =
        &registry.counter("herald_http_responses_total", "HTTP responses sent, by status class",
                          {{"code", std::to_string(c) + "xx"}});
  }
  st.accepted = &registry.counter("herald_connections_accepted_total", "Connections accepted");
  st.rejected_limit = &registry.counter("herald_connections_rejected_total",
                                        "Connections refused, by reason", {{"reason", "limit"}});
  st.rejected_per_ip = &registry.counter("herald_connections_rejected_total",
                                         "Connections refused, by reason", {{"reason", "per_ip"}});
  st.tls_handshake_failures =
      &registry.counter("herald_tls_handshake_failures_total",
                        "TLS handshakes that failed (plain HTTP to the TLS port, a client that "
                        "refused the certificate, a timeout)");
  registry.callback("herald_connections", "Connections open now", [&st] {
    return static_cast<double>(st.connections.load(std::memory_order_relaxed));
  });
  registry.callback("herald_shards", "Shards (event-loop threads)",
                    [n = pool.size()] { return static_cast<double>(n); });
}

void Server::Impl::fetch_jwks(const std::string& option, const std::string& url,
                              auth::TokenVerifier* verifier) {
  if (url.empty()) return;
  const AuthOptions& a = options.auth;
  std::unique_ptr<auth::JwksFetcher> fetcher;
  try {
    fetcher = std::make_unique<auth::JwksFetcher>(
        auth::JwksFetcher::Settings{url, a.jwks_ca_file, a.jwks_refresh,
                                    std::chrono::milliseconds(5000), 1 << 20},
        [verifier](std::shared_ptr<const auth::Jwks> keys) {
          verifier->set_jwks(std::move(keys));
        });
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(option + ": " + e.what());
  }
  verifier->fetch_unknown_kids([f = fetcher.get()] { f->wanted(); });
  if (auto failed = fetcher->fetch()) {
    log::warn("jwks not fetched at start: tokens with a kid are refused as temporary until it is",
              {{"option", option},
               {"error", *failed},
               {"retry_s", auth::JwksFetcher::kRetryAfter.count()},
               {"fix", "check " + option + " (and auth.jwks_ca_file for a private CA)"}});
  }
  fetcher->start();
  jwks_fetchers.push_back(std::move(fetcher));
}

void Server::Impl::make_broker(metrics::Registry& registry) {
  auto& st = state;
  // Deliveries arrive on the subscriber's shard and go to its hub.
  auto deliver = [&st](unsigned shard, const std::string& room, const fanout::MessagePtr& frame) {
    st.shards[shard]->hub.deliver(room, frame);
  };
  if (options.cluster.mode == "redis") {
    // A reset tells the room's local subscribers their stream was lost;
    // each has its client subscribe again (or reconnect, 3005), and the
    // resubscribe says what could be recovered.
    auto reset = [&st](unsigned shard, const std::string& room) {
      // A copy: a subscriber may edit the hub.
      for (fanout::Subscriber* s : st.shards[shard]->hub.subscribers(room)) s->stream_lost(room);
    };
    auto cluster = std::make_unique<broker::RedisBroker>(options, pool, deliver, reset, registry);
    cluster_broker = cluster.get();
    broker = std::move(cluster);
  } else {
    broker = std::make_unique<broker::MemoryBroker>(options, pool, deliver, registry);
  }
  st.broker = broker.get();
  st.pool = &pool;
  st.node_id =
      options.cluster.node_id.empty() ? "node-" + random::hex_id(8) : options.cluster.node_id;
  st.started_unix_s = unix_now();
  if (cluster_broker != nullptr) {
    st.cluster_nodes = [cluster = cluster_broker](
                           unsigned from,
                           std::function<void(std::vector<broker::ClusterNode>)> done) {
      cluster->nodes(from, std::move(done));
    };
    st.survey = [cluster = cluster_broker](unsigned from, std::string question,
                                           std::function<void(broker::SurveyResult)> done) {
      cluster->survey(from, std::move(question), std::move(done));
    };
    cluster_broker->set_survey_responder(
        [&st](std::string_view question) { return api::answer_survey(st.census, question); });
  }
}

void Server::Impl::register_routes(metrics::Registry& registry) {
  auto& st = state;
  st.router.add(beast_http::verb::get, "/healthz", [&st](const http::HttpRequest& req) {
    if (st.draining.load(std::memory_order_relaxed)) {
      return http::make_text_response(beast_http::status::service_unavailable, "draining\n",
                                      "text/plain", req.version());
    }
    return http::make_text_response(beast_http::status::ok, "ok\n", "text/plain", req.version());
  });
  if (options.metrics.require_key && options.api.key.empty()) {
    throw std::runtime_error(
        "metrics.require_key is on but api.key is empty: set api.key (HERALD_API_KEY), which "
        "/metrics will then ask for");
  }
  st.router.add_async(
      beast_http::verb::get, "/metrics",
      [&registry, &st](const http::HttpRequest& req, unsigned, http::HttpRouter::Respond respond) {
        if (st.options.metrics.require_key && !api::api_authorized(st, req, respond)) return;
        respond(http::make_text_response(beast_http::status::ok, registry.render(),
                                         "text/plain; version=0.0.4; charset=utf-8",
                                         req.version()));
      });
  api::register_api(st.router, st);
  api::register_membership_api(st.router, st, membership_store.get(), membership_writer.get());
  sse::register_client_publish(st.router, st);
  if (options.web.enabled) {
    // The web app, from memory (web/assets.hpp); index.html also at "/".
    for (const web::Asset& a : web::assets()) {
      const auto serve = [&a](const http::HttpRequest& req) {
        auto res = http::make_text_response(beast_http::status::ok, std::string(a.body),
                                            a.content_type, req.version());
        res.set(beast_http::field::cache_control, "no-cache");
        // The app loads only its own files and talks only to this server
        // ('self' covers ws: and wss: to the same host); no inline script
        // or style exists, so none is allowed, and no other site may frame
        // it (clickjacking).
        res.set("Content-Security-Policy",
                "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
                "frame-ancestors 'none'");
        res.set(beast_http::field::x_frame_options, "DENY");
        res.set("Referrer-Policy", "no-referrer");
        return res;
      };
      st.router.add(beast_http::verb::get, std::string(a.path), serve);
      if (a.path == "/index.html") st.router.add(beast_http::verb::get, "/", serve);
    }
  }
}

Server::~Server() {
  shutdown();
}

http::HttpRouter& Server::router() {
  return impl_->state.router;
}
void Server::Impl::open_state() {
  const StateOptions& o = options.state;
  if (o.dir.empty()) return;
  auto opened = state::MembershipStore::open({.dir = o.dir,
                                              .max_bytes = o.max_bytes,
                                              .sync = o.sync,
                                              .max_rooms_per_user = o.max_rooms_per_user,
                                              .max_members_per_room = o.max_members_per_room});
  if (!opened) throw std::runtime_error("state.dir: " + opened.error());
  membership_store = std::move(*opened);
  membership_writer = std::make_unique<state::Writer>(
      *membership_store,
      state::Writer::Options{
          .max_delay = o.max_delay, .max_batch = 1000, .max_queue = o.max_queue});
  state.memberships = membership_store.get();
  state.membership_writer = membership_writer.get();
  // A read marker set on one connection reaches the user's others.
  state.each_client_of = [&st = state](const std::string& user,
                                       std::function<void(client::Client&)> act) {
    st.for_each_client_of(0, user, {},
                          [act = std::move(act)](client::Client& c) {
                            act(c);
                            return true;
                          },
                          {});
  };
  state.run_on_shard = [&st = state](unsigned shard, std::function<void()> fn) {
    boost::asio::post((*st.pool)[shard].ctx, std::move(fn));
  };
  // A publication's mentions and its sender's read marker are kept, and
  // shown on the users' connections (membership/mentioning_broker.hpp).
  mentioning_broker = std::make_unique<membership::MentioningBroker>(
      *state.broker, *membership_writer, o.max_mentions,
      [&st = state](const std::string& user, const std::string& room) {
        st.each_client_of(user, [room](client::Client& c) { c.membership_changed(room); });
      });
  state.broker = mentioning_broker.get();
  // What the state costs, pinned by tests: changes per publication.
  state::Writer& w = *membership_writer;
  const membership::MentioningBroker& mb = *mentioning_broker;
  state.registry.callback(
      "herald_state_changes_total", "Per-user state changes committed",
      [&w] { return static_cast<double>(w.changes()); }, true);
  state.registry.callback(
      "herald_state_batches_total", "Transactions the per-user state changes were committed in",
      [&w] { return static_cast<double>(w.batches()); }, true);
  state.registry.callback(
      "herald_state_changes_dropped_total",
      "Mentions and read markers of publications not kept: the writer's queue was full "
      "(state.max_queue)",
      [&mb] { return static_cast<double>(mb.dropped()); }, true);
  log::info("state opened", {{"dir", o.dir}, {"max_bytes", o.max_bytes}, {"sync", o.sync}});
}

void Server::Impl::make_backend_hooks(metrics::Registry& registry) {
  const ProxyOptions& proxy = options.proxy;
  auto require = [&](bool wanted, proxy::HookKind hook, const std::string& key) {
    if (wanted && proxy.urls[hook].empty()) {
      throw std::runtime_error(key + " = true needs " + std::string(proxy::hook_url_key(hook)) +
                               " (the backend that decides)");
    }
  };
  require(options.rooms.subscribe_proxy, proxy::HookKind::subscribe, "rooms.subscribe_proxy");
  require(options.rooms.publish_proxy, proxy::HookKind::publish, "rooms.publish_proxy");
  for (const auto& [name, room] : options.namespaces) {
    require(room.subscribe_proxy, proxy::HookKind::subscribe,
            "namespaces." + name + ".subscribe_proxy");
    require(room.publish_proxy, proxy::HookKind::publish, "namespaces." + name + ".publish_proxy");
  }
  for (proxy::HookKind hook : proxy::kAllHooks) {
    if (proxy.urls[hook].empty()) continue;
    auto& made = state.hooks[hook];
    made = std::make_unique<proxy::Hook>(std::string(proxy::hook_name(hook)),
                                         proxy::hook_url_key(hook), proxy.urls[hook], proxy.timeout,
                                         registry);
    for (unsigned i = 0; i < pool.size(); ++i) {
      state.shards[i]->backends[hook] = std::make_unique<proxy::BackendClient>(
          pool[i].ctx, *made, state.proxy_in_flight, options.http.max_body_bytes);
    }
  }
}

void Server::add_keyword_api(match::store::Store& store) {
  Impl& m = *impl_;
  api::register_keyword_api(m.state.router, m.state, store);
  api::register_keyword_metrics(m.state.registry, store);
  // Moderation wraps the broker (and the mentioning broker, when there is
  // one: mentions are read from the moderated text), so that every publish
  // path passes through it (gateway/moderation/moderator.hpp).
  m.moderator = std::make_unique<moderation::Moderator>(store, m.options, m.state.registry);
  m.moderating_broker =
      std::make_unique<moderation::ModeratingBroker>(*m.state.broker, *m.moderator, m.pool);
  m.state.broker = m.moderating_broker.get();
}
void Server::add_api_action(std::string path, api::ApiAction action) {
  register_api_action(impl_->state.router, impl_->state, std::move(path), std::move(action));
}
std::optional<std::string> Server::reload_tls() {
  if (!impl_->state.tls) return std::nullopt;
  return impl_->state.tls->reload();
}

bool Server::tls() const {
  return impl_->state.tls != nullptr;
}

unsigned Server::shard_count() const {
  return impl_->pool.size();
}
std::size_t Server::connections() const {
  return impl_->state.connections.load(std::memory_order_relaxed);
}

void Server::on_cluster_nodes(std::function<void(const std::vector<broker::ClusterNode>&)> fn) {
  impl_->on_nodes = std::move(fn);
}

void Server::add_websocket_endpoint(std::string path, codec::CodecFactory make_codec) {
  auto& endpoints = impl_->state.ws_endpoints;
  for (const WsEndpoint& e : endpoints) {
    if (e.path == path)
      throw std::runtime_error("WebSocket endpoint " + path + " is served already");
  }
  if (endpoints.size() == fanout::Message::kCodecSlots) {
    throw std::runtime_error("WebSocket endpoint " + path + ": at most " +
                             std::to_string(fanout::Message::kCodecSlots) +
                             " endpoints (codec slots in fanout/message.hpp)");
  }
  endpoints.push_back({std::move(path), std::move(make_codec)});
}

void Server::start() {
  Impl& m = *impl_;
  m.refuse_unmoderated();
  m.listen();
  m.make_codecs();
  m.started = true;
  if (m.state.dev_mode) {
    log::warn(
        "dev mode is on: clients connect as any user they name, with no token, and "
        "/api/* answers without a key; only this machine (loopback hosts and origins, "
        "and server.allowed_origins) is served. Set auth.hmac_secret, "
        "auth.rsa_public_key_file, auth.ecdsa_public_key_file or auth.jwks_file, or "
        "auth.dev_mode = off, to turn it off",
        {{"listen", m.options.listen.to_string()}});
  }
  m.broker->start();
  if (m.cluster_broker) m.join_cluster(local_endpoint());
  asio::post(m.pool[0].ctx, [&m] { m.accept(); });
  m.pool.start();
}

void Server::Impl::refuse_unmoderated() const {
  if (moderator) return;
  // Moderation configured with no store to read dictionaries from would
  // publish unmoderated text: refuse to start instead.
  bool wanted = !options.rooms.moderation.dictionaries.empty();
  for (const auto& [name, room] : options.namespaces)
    wanted = wanted || !room.moderation.dictionaries.empty();
  if (wanted)
    throw std::runtime_error("moderation is configured but the server has no keyword store");
}

void Server::Impl::listen() {
  Impl& m = *this;
  const config::Endpoint& want = m.options.listen;
  auto& ctx = m.pool[0].ctx;
  boost::system::error_code ec;
  tcp::endpoint endpoint;
  auto address = asio::ip::make_address(want.host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(address, want.port);
  } else {
    tcp::resolver resolver(ctx);
    auto results = resolver.resolve(want.host, std::to_string(want.port), ec);
    if (ec || results.empty()) {
      std::error_code code =
          ec ? std::error_code(ec) : std::make_error_code(std::errc::address_not_available);
      throw std::system_error(code, "cannot resolve listen host '" + want.host + "'");
    }
    endpoint = results.begin()->endpoint();
  }
  auto fail = [&](const char* step) {
    throw std::system_error(
        ec, std::string("cannot listen on ") + want.to_string() + " (" + step + ")");
  };
  m.acceptor = std::make_unique<tcp::acceptor>(ctx);
  m.acceptor->open(endpoint.protocol(), ec);
  if (ec) fail("open");
  m.acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) fail("setsockopt");
  m.acceptor->bind(endpoint, ec);
  if (ec) fail("bind");
  m.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) fail("listen");
  m.acceptor->non_blocking(true, ec);  // for the batch accepts in accept()
  if (ec) fail("non_blocking");
  m.accept_retry = std::make_unique<asio::steady_timer>(ctx);
}

void Server::Impl::make_codecs() {
  for (auto& shard : state.shards) {
    for (const WsEndpoint& e : state.ws_endpoints) shard->codecs.push_back(e.make_codec());
  }
}

void Server::Impl::join_cluster(const config::Endpoint& bound) {
  Impl& m = *this;
  if (broker::RedisBroker* cluster = m.cluster_broker) {
    // One connect timeout for Redis before serving, so the first clients
    // find it; serve anyway (their commands fail with 108 until it is up).
    const auto& c = m.options.cluster;
    const bool ready = cluster->wait_ready(c.redis.connect_timeout);
    if (auto refused = cluster->refusal(); !ready && refused) {
      // Wrong credentials do not fix themselves: stop rather than serve
      // with every room command failing. Nothing serves yet (the shards
      // have not started), so there is nothing for shutdown() to drain.
      m.started = false;
      throw std::runtime_error("cluster.redis.password: " + *refused +
                               " (set cluster.redis.password, and cluster.redis.username for an "
                               "ACL user, to credentials that Redis accepts)");
    }
    if (!ready)
      log::warn("serving without the cluster's redis for now: room commands fail until it is up",
                {{"redis", c.redis_topology.address.to_string()}});
    else
      log::info("cluster mode", {{"redis", c.redis_topology.address.to_string()}});
    broker::ClusterNode self;
    self.id = m.state.node_id;
    self.host = c.advertise.empty() ? bound.host : c.advertise;
    self.port = bound.port;
    log::info("cluster node", {{"id", self.id}, {"advertise", self.host}});
    cluster->register_node(
        std::move(self),
        [&st = m.state] {
          return std::pair(st.connections.load(std::memory_order_relaxed), st.node_stats());
        },
        [&m](const std::vector<broker::ClusterNode>& nodes) {
          if (m.on_nodes) m.on_nodes(nodes);
        });
  }
}

namespace {

// A 503 with Herald's error body, then close: what a connection over a
// connection limit gets (a browser's WebSocket sees a failed handshake).
std::string refusal_response(std::string_view code, std::string_view message) {
  // The JSON error every response carries (make_error_response), written
  // out once: the socket is refused before any session exists to send it.
  http::HttpResponse res =
      http::make_error_response(beast_http::status::service_unavailable, code, message);
  res.set(beast_http::field::retry_after, "1");
  res.keep_alive(false);
  std::ostringstream out;
  out << res;
  return out.str();
}

}  // namespace

// Hands an accepted socket to its shard (or turns it away at a limit).
void Server::Impl::admit(tcp::socket socket, ShardPool::Shard& target) {
  static const std::string kTooMany =
      refusal_response("too_many_connections", "server.max_connections reached; retry later");
  static const std::string kTooManyFromIp =
      refusal_response("too_many_connections_per_ip",
                       "server.max_connections_per_ip reached for this address; retry later");
  state.accepted->inc();
  std::size_t open = state.connections.fetch_add(1, std::memory_order_relaxed) + 1;
  if (open > options.max_connections) {
    state.rejected_limit->inc();
    reject(std::move(socket), target.ctx, kTooMany);
    return;
  }
  boost::system::error_code ec;
  const tcp::endpoint peer = socket.remote_endpoint(ec);
  if (ec) {  // gone already (reset before we looked): nothing to serve
    socket.close(ec);
    state.connections.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  std::optional<limits::ConnectionsPerIp::Lease> lease = state.per_ip.try_acquire(peer.address());
  if (!lease) {
    state.rejected_per_ip->inc();
    reject(std::move(socket), target.ctx, kTooManyFromIp);
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);
  // The TLS context is taken here, per connection: a reload changes what
  // later connections get, never one that is open.
  std::shared_ptr<asio::ssl::context> tls = state.tls ? state.tls->current() : nullptr;
  asio::post(target.ctx, [this, &target, s = std::move(socket), l = std::move(*lease),
                          tls = std::move(tls)]() mutable {
    ClientStream stream = tls ? ClientStream(std::in_place_type<TlsStream>, std::move(s), *tls)
                              : ClientStream(std::in_place_type<PlainStream>, std::move(s));
    std::make_shared<HttpSession>(std::move(stream), std::move(l), state, target.index)->start();
  });
}

void Server::Impl::accept() {
  ShardPool::Shard& target = pool[next_shard];
  next_shard = (next_shard + 1) % pool.size();
  acceptor->async_accept(target.ctx,
                         [this, &target](boost::system::error_code ec, tcp::socket socket) {
                           if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
                           if (ec) {
                             // Out of descriptors (or a similar transient failure): retrying at
                             // once would spin; wait a moment so closing connections free some.
                             log::warn("accept failed", {{"error", ec.message()}});
                             accept_retry->expires_after(std::chrono::milliseconds(100));
                             accept_retry->async_wait([this](boost::system::error_code e) {
                               if (!e) accept();
                             });
                             return;
                           }
                           admit(std::move(socket), target);
                           // Drain the backlog now, without waiting for another loop turn: one
                           // accept per turn cannot keep up with a reconnect storm while the
                           // shard is busy delivering, and a full listen queue drops SYNs,
                           // which clients only retry after 1 s, 3 s, 7 s... (measured: G1 at
                           // 6,000 subscribers had half of them stuck reconnecting). The
                           // acceptor is non-blocking, so this stops at EWOULDBLOCK.
                           for (int i = 0; i < kAcceptBatch; ++i) {
                             ShardPool::Shard& next = pool[next_shard];
                             boost::system::error_code e;
                             tcp::socket more = acceptor->accept(next.ctx, e);
                             if (e) break;
                             next_shard = (next_shard + 1) % pool.size();
                             admit(std::move(more), next);
                           }
                           accept();
                         });
}

void Server::Impl::reject(tcp::socket socket, asio::io_context& ctx, const std::string& response) {
  // Written on the shard that owns the socket. The connection still counts
  // until it is closed. `response` is one of admit()'s statics.
  auto s = std::make_shared<tcp::socket>(std::move(socket));
  asio::post(ctx, [this, s, &response] {
    // A TLS client could not read a plain HTTP answer: it sees the
    // connection close during its handshake, and retries.
    const std::string_view bytes = state.tls ? std::string_view() : std::string_view(response);
    asio::async_write(*s, asio::buffer(bytes.data(), bytes.size()),
                      [this, s](boost::system::error_code, std::size_t) {
                        boost::system::error_code ignored;
                        s->shutdown(tcp::socket::shutdown_both, ignored);
                        s->close(ignored);
                        state.connections.fetch_sub(1, std::memory_order_relaxed);
                      });
  });
}

config::Endpoint Server::local_endpoint() const {
  boost::system::error_code ec;
  auto ep = impl_->acceptor ? impl_->acceptor->local_endpoint(ec) : tcp::endpoint();
  return config::Endpoint{ep.address().to_string(), ep.port()};
}

bool Server::shutdown() {
  Impl& m = *impl_;
  if (!m.started || m.stopped) return true;
  m.stopped = true;
  m.state.draining.store(true, std::memory_order_relaxed);

  // Stop accepting, on the acceptor's own thread, and wait until it is done
  // so no connection arrives after the drain below has looked.
  std::promise<void> closed;
  asio::post(m.pool[0].ctx, [&m, &closed] {
    boost::system::error_code ignored;
    m.acceptor->close(ignored);
    m.accept_retry->cancel();
    closed.set_value();
  });
  closed.get_future().wait();

  for (unsigned i = 0; i < m.pool.size(); ++i) {
    asio::post(m.pool[i].ctx, [&m, i] {
      // drain() may close a session, which erases it from this set once the
      // cancelled read completes (later, never inside this loop).
      auto& shard = *m.state.shards[i];
      for (HttpSession* s : shard.http_sessions) s->drain();
      // WebSocket clients are told to reconnect (elsewhere, or here later)
      // and recover from their offsets.
      std::vector<client::Client*> clients(shard.clients.begin(), shard.clients.end());
      for (client::Client* c : clients) c->disconnect(protocol::DisconnectCode::shutdown);
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + m.options.shutdown_timeout;
  while (connections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::size_t left = connections();
  if (left > 0) {
    log::warn("shutdown timeout reached; closing remaining connections",
              {{"connections", left}, {"timeout_ms", m.options.shutdown_timeout.count()}});
  }
  m.broker->stop();
  m.state.stopped.store(true, std::memory_order_relaxed);
  m.pool.stop_and_join();
  return left == 0;
}

}  // namespace herald::gateway
