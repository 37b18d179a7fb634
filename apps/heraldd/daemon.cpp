#include "daemon.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <functional>
#include <memory>
#include <mutex>
#include <system_error>
#include <vector>

#include "core/log.hpp"
#include "core/metrics/process.hpp"
#include "core/metrics/registry.hpp"
#include "dns_service.hpp"
#include "gateway/server.hpp"

namespace herald::heraldd {

int run(const Settings& settings) {
  // Writes to a closed socket must return EPIPE, not kill the process.
  std::signal(SIGPIPE, SIG_IGN);

  metrics::Registry registry;
  metrics::register_process_metrics(registry);
  registry.gauge("herald_build_info", "Build information", {{"version", HERALD_VERSION}}).set(1);

  // Declared before the server so that it outlives it: the keyword API
  // holds a reference.
  std::unique_ptr<match::store::Store> keywords;
  try {
    keywords = match::store::make_store(settings.keywords);
  } catch (const std::runtime_error& e) {
    log::error("cannot start", {{"error", e.what()}});
    return 2;
  }
  log::info("keyword store", {{"store", settings.keywords.store},
                              {"redis", settings.keywords.store == "redis"
                                            ? settings.keywords.redis_topology.address.to_string()
                                            : std::string("-")}});
  {
    // Give Redis one connect timeout before serving, so the first requests
    // find it ready; serve anyway if it is down (searches of dictionaries
    // not loaded yet and writes fail with 503 until it is back). The memory
    // store is ready at once.
    const match::store::Readiness r =
        keywords->wait_ready(settings.keywords.redis.redis.connect_timeout);
    // Wrong credentials, unlike a Redis that is down, do not fix
    // themselves: stop with the key to change.
    if (r.refusal) {
      log::error("cannot start",
                 {{"error", "keywords.redis.password: " + *r.refusal},
                  {"hint",
                   "set keywords.redis.password (and keywords.redis.username for an ACL user) "
                   "to credentials that Redis accepts"}});
      return 2;
    }
    if (!r.ready)
      log::warn("serving without redis for now: keyword writes fail until it is reachable",
                {{"redis", settings.keywords.redis_topology.address.to_string()}});
  }
  // Declared before `control`, so it is destroyed after it: a reload still
  // queued on `control` at exit holds an HTTP session, which must be
  // released while the server exists (and its shards have stopped).
  std::unique_ptr<gateway::Server> server_ptr;
  // The main thread's own io_context: signals, and the work of API actions
  // that must not run on a shard (a zone reload reads every zone file).
  // Reloads from SIGHUP and from the API both run here, one at a time.
  boost::asio::io_context control(1);
  std::unique_ptr<DnsService> dns;  // set before `control` runs, read only on it
  // Signals are caught on the main thread's own io_context, away from the
  // shards. They are caught from here on, before the server logs that it
  // listens: a SIGTERM sent as soon as the port is known waits in the set
  // for control.run() and drains the clients, rather than killing the
  // process with the default action. After the first one the default
  // action is restored, so a second Ctrl-C ends the process at once if a
  // drain takes too long.
  boost::asio::signal_set signals(control, SIGTERM, SIGINT);
  int caught = 0;
  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    caught = signo;
    boost::system::error_code ignored;
    signals.clear(ignored);
    control.stop();
  });
  // SIGHUP reloads the zones: a new database is built beside the serving one
  // and swapped in; queries in flight finish on the old one. It reloads the
  // TLS certificate and key too: new connections get the new pair, open
  // ones keep theirs, and a pair that does not load leaves the old one.
  boost::asio::signal_set hup(control, SIGHUP);
  std::function<void()> wait_hup = [&] {
    hup.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      if (server_ptr && server_ptr->tls()) {
        if (auto failed = server_ptr->reload_tls()) {
          log::error("tls reload failed: still serving the previous certificate",
                     {{"error", *failed}});
        } else {
          log::info("tls certificate reloaded", {{"by", "SIGHUP"}});
        }
      }
      if (dns) {
        log::info("reloading zones", {{"by", "SIGHUP"}});
        (void)dns->load();
      }
      wait_hup();
    });
  };
  wait_hup();
  try {
    server_ptr = std::make_unique<gateway::Server>(settings.gateway, registry);
    server_ptr->add_keyword_api(*keywords);
    server_ptr->add_api_action(
        "/api/dns/reload",
        [&control, &dns](const std::string&, std::function<void(gateway::api::ApiReply)> reply) {
          boost::asio::post(control, [&dns, reply = std::move(reply)] {
            gateway::api::ApiReply r;
            if (!dns) {
              r.status = boost::beast::http::status::not_found;
              r.code = "not_available";
              r.message = "the DNS server is off (dns.enabled)";
              return reply(std::move(r));
            }
            log::info("reloading zones", {{"by", "api"}});
            r.result = load_report_json(dns->load());
            reply(std::move(r));
          });
        });
  } catch (const std::runtime_error& e) {
    log::error("cannot start", {{"error", e.what()}});
    return 2;
  }
  gateway::Server& server = *server_ptr;
  // Cluster mode: the node registry's live nodes go to the discovery zone.
  // They may change before the DNS service exists and after it is gone, on
  // the broker's thread: the latest list is kept here under a lock.
  struct NodeSink {
    std::mutex mu;
    DnsService* dns = nullptr;
    std::vector<gateway::broker::ClusterNode> latest;
  };
  auto sink = std::make_shared<NodeSink>();
  server.on_cluster_nodes([sink](const std::vector<gateway::broker::ClusterNode>& nodes) {
    std::lock_guard lock(sink->mu);
    sink->latest = nodes;
    if (sink->dns != nullptr) sink->dns->set_nodes(nodes);
  });
  try {
    server.start();
  } catch (const std::system_error& e) {
    log::error("cannot start", {{"error", e.what()},
                                {"hint",
                                 "choose another address with --server.listen "
                                 "(or HERALD_SERVER_LISTEN), or stop the process "
                                 "holding it"}});
    return 1;
  } catch (const std::runtime_error& e) {
    log::error("cannot start", {{"error", e.what()}});
    return 2;
  }
  log::info("listening", {{"addr", server.local_endpoint().to_string()},
                          {"shards", server.shard_count()},
                          {"version", HERALD_VERSION}});

  // The DNS server, when enabled: zones load before it binds, so its first
  // answer already comes from them; a zone that fails is logged and left out.
  if (settings.dns.enabled) {
    try {
      dns = std::make_unique<DnsService>(settings.dns, server.local_endpoint(), registry);
    } catch (const std::runtime_error& e) {
      log::error("cannot start", {{"error", e.what()}});
      server.shutdown();
      return 2;
    }
    (void)dns->load();
    {
      std::lock_guard lock(sink->mu);
      sink->dns = dns.get();
      if (!sink->latest.empty()) dns->set_nodes(sink->latest);
    }
    try {
      dns->start();
    } catch (const std::system_error& e) {
      log::error("cannot start",
                 {{"error", e.what()}, {"hint", "choose another address with --dns.listen"}});
      server.shutdown();
      return 1;
    }
  }

  control.run();
  {
    std::lock_guard lock(sink->mu);
    sink->dns = nullptr;
  }
  if (dns) dns->stop();

  log::info("shutting down", {{"signal", caught == SIGTERM ? "SIGTERM" : "SIGINT"},
                              {"connections", server.connections()},
                              {"timeout_ms", settings.gateway.shutdown_timeout.count()}});
  bool clean = server.shutdown();
  // The store's thread may still answer a request it had in flight by
  // posting to a shard: end it while the (stopped) shards still exist.
  keywords.reset();
  log::info("stopped", {{"clean", clean}});
  return 0;
}

}  // namespace herald::heraldd
