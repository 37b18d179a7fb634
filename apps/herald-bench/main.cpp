// herald-bench: the load generator for the gateway benchmarks (G1, G2, G3
// in docs/benchmarks.md). It starts the servers it measures itself, on
// loopback, and every run is bounded in time and stops by itself.
//
//   herald-bench g1 [--subscribers N] [--duration 60s] ...   zero loss under churn
//   herald-bench g2 [--subscribers N] [--rooms R] ...         fan-out throughput vs references
//                   [--reference uws|ws|both]                 (uWebSockets.js, Node.js ws)
//                   [--tls]                                   heraldd over wss:// too
//                   [--centrifugo]                            and over Centrifugo's protocol
//   herald-bench g3 [--nodes 3] [--subscribers N] ...         G1 over a cluster, a node killed
//                   [--kill node|redis-master|none]           or the Redis master (Sentinel
//                   failover)
//                   [--redis single|sentinel] [--wait-replicas N]
//
// Progress goes to stderr every second; the result goes to stdout as JSON
// (one object per server) and to stderr as a table. Exit 0 when every
// correctness figure held (no loss, no duplicate, every recovery), 1 if not,
// 2 on bad arguments or a server that would not start.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "core/config/values.hpp"
#include "core/random.hpp"
#include "gateway/auth/token.hpp"
#include "scenarios.hpp"

namespace {

using namespace herald::bench;

// A self-signed P-256 certificate and its key for 127.0.0.1, made by the
// openssl command line in a fresh temporary directory.
struct TlsFiles {
  std::filesystem::path dir;
  std::string cert, key;
};
TlsFiles make_certificate(const std::string& openssl) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("herald-bench-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  TlsFiles f{dir, (dir / "server.crt").string(), (dir / "server.key").string()};
  herald::process::Child req({openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                              "ec_paramgen_curve:P-256", "-nodes", "-keyout", f.key, "-out", f.cert,
                              "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                              "subjectAltName=IP:127.0.0.1"});
  if (req.wait_exit(std::chrono::seconds(60)) != 0) {
    throw std::runtime_error("could not make a certificate with '" + openssl + "' (--openssl):\n" +
                             req.output());
  }
  return f;
}

std::string sibling_heraldd() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto p = self.parent_path().parent_path() / "heraldd" / "heraldd";
    if (std::filesystem::exists(p)) return p.string();
  }
  return "heraldd";
}

// Raises the descriptor limit to the hard limit: each connection is one
// descriptor here and one in the server (which inherits the limit).
rlim_t raise_fd_limit() {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
  getrlimit(RLIMIT_NOFILE, &lim);
  return lim.rlim_cur;
}

std::chrono::milliseconds duration_arg(const std::string& text, const char* flag) {
  auto d = herald::config::parse_duration(text);
  if (!d) throw CLI::ValidationError(flag, "expected a duration like 10s or 500ms, got " + text);
  return *d;
}

// The churn load's flags, shared by G1 (one node) and G3 (G1 across nodes):
// the same knobs, the same defaults and the same names on both.
struct ChurnFlags {
  std::string duration = "60s";
  std::string reconnect_every = "10s";

  void add_to(CLI::App& cmd, G1Options& o) {
    cmd.add_option("--subscribers", o.subscribers)->capture_default_str();
    cmd.add_option("--rooms", o.rooms)->capture_default_str();
    cmd.add_option("--publishers", o.publishers)->capture_default_str();
    cmd.add_option("--rate", o.rate, "Publications per second, all publishers together")
        ->capture_default_str();
    cmd.add_option("--duration", duration)->capture_default_str();
    cmd.add_option("--reconnect-every", reconnect_every)->capture_default_str();
  }
  void apply(G1Options& o) const {
    o.duration = duration_arg(duration, "--duration");
    o.reconnect_every = duration_arg(reconnect_every, "--reconnect-every");
  }
  // --smoke: at most `subscribers` in rooms of ten, four publishers, a
  // publication a second per subscriber, a reconnect a second, for
  // `duration`; the same small shape for G1 and G3.
  static void cap_for_smoke(G1Options& o, unsigned subscribers, std::chrono::milliseconds length) {
    o.subscribers = std::min(o.subscribers, subscribers);
    o.rooms = std::min(o.rooms, subscribers / 10);
    o.publishers = std::min(o.publishers, 4u);
    o.rate = std::min(o.rate, static_cast<double>(subscribers));
    o.duration = length;
    o.reconnect_every = std::chrono::milliseconds(1000);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"herald-bench: load generator for Herald's gateway benchmarks (G1, G2, G3)",
               "herald-bench"};
  app.require_subcommand(1);
  std::string heraldd = sibling_heraldd();
  unsigned server_threads = 1;
  std::string json_path;
  bool smoke = false;
  app.add_option("--heraldd", heraldd, "heraldd binary to start")->capture_default_str();
  app.add_option("--server-threads", server_threads,
                 "heraldd shards; 1 leaves the other core of a 2-core machine to the bench")
      ->capture_default_str();
  app.add_option("--json", json_path, "Also write the JSON results to this file");
  app.add_flag("--smoke", smoke, "Tiny, quick run for CI: a few seconds, small N");
  std::vector<std::string> heraldd_flags;
  app.add_option("--heraldd-flag", heraldd_flags,
                 "Extra heraldd flag, e.g. --heraldd-flag=--client.write_delay=2ms (repeatable)");

  G1Options g1;
  ChurnFlags g1_flags;
  auto* g1cmd = app.add_subcommand("g1", "Zero loss under reconnect churn (the Karib test)");
  g1_flags.add_to(*g1cmd, g1);

  G2Options g2;
  std::string g2_duration = "10s";
  bool no_reference = false;
  std::string reference = "both";
  std::string node = "node";
  std::string reference_script = HERALD_SOURCE_DIR "/bench/gateway/reference_server.mjs";
  std::string uws_script = HERALD_SOURCE_DIR "/bench/gateway/reference_uws.mjs";
  auto* g2cmd = app.add_subcommand(
      "g2", "Fan-out throughput, beside reference servers (uWebSockets.js, Node.js ws)");
  g2cmd->add_option("--subscribers", g2.subscribers)->capture_default_str();
  g2cmd->add_option("--rooms", g2.rooms)->capture_default_str();
  g2cmd->add_option("--publishers", g2.publishers)->capture_default_str();
  g2cmd->add_option("--window", g2.window, "Publications in flight per publisher")
      ->capture_default_str();
  g2cmd->add_option("--payload", g2.payload_bytes, "Bytes of filler in each publication")
      ->capture_default_str();
  g2cmd->add_flag("--chat", g2.chat,
                  "Publish a realistic chat message (~300 bytes of JSON text) instead of filler");
  g2cmd->add_flag("--compression", g2.compression,
                  "Clients offer permessage-deflate and heraldd runs with client.compression "
                  "(the references are not asked to compress)");
  g2cmd->add_option("--duration", g2_duration)->capture_default_str();
  auto* reference_opt =
      g2cmd
          ->add_option("--reference", reference,
                       "Reference servers measured after heraldd: uws (uWebSockets.js), ws "
                       "(Node.js ws) or both")
          ->capture_default_str()
          ->check(CLI::IsMember({"uws", "ws", "both"}));
  g2cmd->add_flag("--no-reference", no_reference, "Measure heraldd only")->excludes(reference_opt);
  g2cmd->add_option("--node", node, "Node.js for the reference servers")->capture_default_str();
  g2cmd->add_option("--reference-script", reference_script, "The Node.js ws reference server")
      ->capture_default_str();
  g2cmd->add_option("--uws-script", uws_script, "The uWebSockets.js reference server")
      ->capture_default_str();
  bool tls = false;
  std::string openssl_cli = "/usr/bin/openssl";
  g2cmd->add_flag("--tls", tls,
                  "After heraldd over plain TCP, heraldd again over TLS (wss://, a P-256 "
                  "certificate made for the run): the same load, the cost of TLS beside it");
  g2cmd->add_option("--openssl", openssl_cli, "The openssl command line, to make that certificate")
      ->capture_default_str();
  bool centrifugo = false;
  g2cmd->add_flag("--centrifugo", centrifugo,
                  "After heraldd on /ws, heraldd again on /connection/websocket with Centrifugo's "
                  "client protocol (a token signed for the run): the same load in both protocols");

  G1Options g3;
  unsigned g3_nodes = 3;
  ChurnFlags g3_flags;
  std::string redis_server = "/usr/bin/redis-server";
  auto* g3cmd = app.add_subcommand(
      "g3",
      "G1 across heraldd nodes sharing one Redis, the last node (or the Redis master) SIGKILLed "
      "halfway");
  g3cmd->add_option("--nodes", g3_nodes, "heraldd nodes (2 or more)")
      ->capture_default_str()
      ->check(CLI::Range(2u, 16u));
  g3_flags.add_to(*g3cmd, g3);
  g3cmd->add_option("--redis-server", redis_server, "redis-server binary to start")
      ->capture_default_str();
  std::string g3_kill = "node", g3_redis = "single";
  unsigned g3_wait_replicas = 0;
  g3cmd
      ->add_option("--kill", g3_kill,
                   "What is SIGKILLed halfway: node (the last heraldd), redis-master (the Redis "
                   "master, which a Sentinel fails over to its replica; implies --redis "
                   "sentinel), or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"node", "redis-master", "none"}));
  auto* redis_opt =
      g3cmd
          ->add_option("--redis", g3_redis,
                       "single: one redis-server; sentinel: a master, one replica (--replicaof) "
                       "and one Redis Sentinel, the nodes finding the master through it")
          ->capture_default_str()
          ->check(CLI::IsMember({"single", "sentinel"}));
  bool g3_cut_replica = false;
  g3cmd->add_flag("--cut-replica-link", g3_cut_replica,
                  "With --kill redis-master: 1 s before the kill, cut the replica's link "
                  "(REPLICAOF a port nobody listens on), so that what is acknowledged in that "
                  "second exists only on the master: a failover that loses acknowledged writes "
                  "unless --wait-replicas holds them back");
  auto* wait_opt =
      g3cmd->add_option("--wait-replicas", g3_wait_replicas,
                        "Passed to heraldd as --cluster.redis.wait_replicas (needs --redis "
                        "sentinel: the replica)");

  try {
    app.parse(argc, argv);
    g3_flags.apply(g3);
    g1_flags.apply(g1);
    g2.duration = duration_arg(g2_duration, "--duration");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (g3cmd->parsed()) {
    if (g3_kill == "redis-master") {
      if (redis_opt->count() > 0 && g3_redis != "sentinel") {
        fmt::print(stderr, "herald-bench: --kill redis-master needs --redis sentinel\n");
        return 2;
      }
      g3_redis = "sentinel";
    }
    if (g3_cut_replica && g3_kill != "redis-master") {
      fmt::print(stderr, "herald-bench: --cut-replica-link needs --kill redis-master\n");
      return 2;
    }
    if (wait_opt->count() > 0 && g3_wait_replicas > 0 && g3_redis != "sentinel") {
      fmt::print(stderr,
                 "herald-bench: --wait-replicas needs --redis sentinel (a replica to wait for)\n");
      return 2;
    }
  }
  if (smoke) {
    // A Redis failover takes seconds (Sentinel's down-after 1 s, the
    // promotion, the nodes' reconnect backoff): the master is killed at 6 s
    // and publishing goes on 6 s after it.
    ChurnFlags::cap_for_smoke(g3, 150,
                              std::chrono::milliseconds(g3_kill == "redis-master" ? 12000 : 4000));
    ChurnFlags::cap_for_smoke(g1, 200, std::chrono::milliseconds(4000));
    g2.subscribers = std::min(g2.subscribers, 200u);
    g2.duration = std::chrono::milliseconds(2000);
    g2.warmup = std::chrono::milliseconds(300);
  }

  g1.server_threads = g2.server_threads = server_threads;
  g3.server_threads = server_threads * g3_nodes;
  const rlim_t fds = raise_fd_limit();
  const unsigned needed = (g1cmd->parsed()   ? g1.subscribers + g1.publishers
                           : g3cmd->parsed() ? g3.subscribers + g3.publishers
                                             : g2.subscribers + g2.publishers) +
                          64;
  if (fds < needed) {
    fmt::print(stderr,
               "herald-bench: the descriptor limit is {} but this run needs about {}; the machine "
               "(ulimit -Hn), not the server, is the limit. Lower --subscribers or raise it.\n",
               fds, needed);
    return 2;
  }

  std::vector<std::string> heraldd_argv{heraldd,
                                        "--server.listen",
                                        "127.0.0.1:0",
                                        "--server.threads",
                                        std::to_string(server_threads),
                                        "--server.max_connections",
                                        "1000000",
                                        "--client.publish_rate",
                                        "1000000",
                                        "--client.max_subscriptions",
                                        "16",
                                        "--rooms.history_size",
                                        "10000"};
  if (g2.compression) {
    heraldd_argv.emplace_back("--client.compression");
    heraldd_argv.emplace_back("true");
  }
  // Centrifugo's clients connect with a token: every G2 run of heraldd gets
  // the key (dev mode stays on for Herald's clients), so both protocols are
  // measured against the same configuration.
  // Made for this run, from the OS's entropy: 32 bytes as hex.
  const std::string token_secret = fmt::format(
      "{:016x}{:016x}{:016x}{:016x}", herald::random::entropy64(), herald::random::entropy64(),
      herald::random::entropy64(), herald::random::entropy64());
  if (centrifugo) {
    heraldd_argv.insert(heraldd_argv.end(),
                        {"--auth.hmac_secret", token_secret, "--auth.dev_mode", "on"});
  }
  // After the bench's own flags, so that a --heraldd-flag overrides them.
  heraldd_argv.insert(heraldd_argv.end(), heraldd_flags.begin(), heraldd_flags.end());

  std::vector<Report> reports;
  bool all_ok = true;
  try {
    if (g3cmd->parsed()) {
      // Redis with nothing persisted (the history lives in it while it
      // runs): one server, or a master, its replica and a Sentinel, each in
      // a directory of its own (a replica writes the RDB it receives, and
      // Sentinel rewrites its configuration file).
      G3Setup setup;
      setup.redis_topology = g3_redis;
      setup.wait_replicas = g3_wait_replicas;
      const auto dir = std::filesystem::temp_directory_path() /
                       ("herald-bench-g3-" + std::to_string(::getpid()));
      struct RemoveDir {
        std::filesystem::path path;
        ~RemoveDir() {
          std::error_code ec;
          std::filesystem::remove_all(path, ec);
        }
      } remove_dir{dir};
      std::vector<std::unique_ptr<Target>> redis;
      auto redis_server_at = [&](const std::string& name, std::vector<std::string> extra) {
        const std::uint16_t port = free_port();
        const auto d = dir / std::to_string(port);
        std::filesystem::create_directories(d);
        std::vector<std::string> args{redis_server, "--port",       std::to_string(port),
                                      "--bind",     "127.0.0.1",    "--save",
                                      "",           "--appendonly", "no",
                                      "--dir",      d.string()};
        if (g3_redis == "sentinel") {
          // A replica's first sync starts at once, not 5 s later.
          args.insert(args.end(), {"--repl-diskless-sync-delay", "0"});
        }
        args.insert(args.end(), extra.begin(), extra.end());
        redis.push_back(std::make_unique<Target>(name, args, "Ready to accept connections", port));
        return redis.back().get();
      };
      std::vector<std::string> redis_flags;
      Target* master =
          redis_server_at(g3_redis == "sentinel" ? "redis-server (master)" : "redis-server", {});
      if (g3_redis == "single") {
        redis_flags = {"--cluster.redis.address", "127.0.0.1:" + std::to_string(master->port())};
      } else {
        Target* replica = redis_server_at(
            "redis-server (replica)", {"--replicaof", "127.0.0.1", std::to_string(master->port())});
        auto wait_until = [](const std::string& what, const std::function<bool()>& done) {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
          while (!done()) {
            if (std::chrono::steady_clock::now() > deadline)
              throw std::runtime_error(what + " did not happen within 30 s");
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        };
        wait_until("the replica's sync (master_link_status:up)", [&] {
          return redis_ask(replica->port(), {"INFO", "replication"}, std::chrono::seconds(1))
                     .find("master_link_status:up") != std::string::npos;
        });
        const std::uint16_t sentinel_port = free_port();
        const auto sdir = dir / "sentinel";
        std::filesystem::create_directories(sdir);
        const std::string conf = (sdir / "sentinel.conf").string();
        std::ofstream(conf) << "port " << sentinel_port << "\nbind 127.0.0.1\ndir " << sdir.string()
                            << "\nsentinel monitor herald 127.0.0.1 " << master->port()
                            << " 1\nsentinel down-after-milliseconds herald 1000\n"
                               "sentinel failover-timeout herald 5000\n";
        redis.push_back(std::make_unique<Target>(
            "redis-sentinel", std::vector<std::string>{redis_server, conf, "--sentinel"},
            R"(\+monitor master herald)", sentinel_port));
        // A Sentinel that does not know the replica cannot promote it.
        wait_until("the Sentinel's discovery of the replica", [&] {
          return redis_ask(sentinel_port, {"SENTINEL", "replicas", "herald"},
                           std::chrono::seconds(1))
                     .find(std::to_string(replica->port())) != std::string::npos;
        });
        redis_flags = {"--cluster.redis.topology",    "sentinel",
                       "--cluster.redis.sentinels",   "127.0.0.1:" + std::to_string(sentinel_port),
                       "--cluster.redis.master_name", "herald"};
        setup.replica = replica;
        setup.sentinel = redis.back().get();
      }
      if (wait_opt->count() > 0) {
        redis_flags.insert(redis_flags.end(),
                           {"--cluster.redis.wait_replicas", std::to_string(g3_wait_replicas)});
      }
      for (const auto& t : redis) setup.redis.push_back(t.get());
      if (g3_kill == "redis-master") setup.kill_redis = master;
      if (g3_cut_replica) setup.cut_replica_before = std::chrono::milliseconds(1000);
      if (g3_kill == "node") setup.kill_node = static_cast<int>(g3_nodes - 1);

      std::vector<std::unique_ptr<Target>> nodes;
      for (unsigned n = 0; n < g3_nodes; ++n) {
        std::vector<std::string> node_argv = heraldd_argv;
        node_argv.insert(node_argv.end(), {"--cluster.mode", "redis"});
        node_argv.insert(node_argv.end(), redis_flags.begin(), redis_flags.end());
        node_argv.insert(node_argv.end(), {"--cluster.node_id", "g3n" + std::to_string(n)});
        nodes.push_back(std::make_unique<Target>("heraldd g3n" + std::to_string(n), node_argv));
        setup.nodes.push_back(nodes.back().get());
      }
      bool ok = false;
      reports.push_back(run_g3(g3, setup, ok));
      all_ok = all_ok && ok;
      if (!ok) {
        for (const auto& t : nodes)
          if (t->running()) fmt::print(stderr, "{} output (tail):\n{}\n", t->name(), t->tail());
        for (const auto& t : redis)
          if (t->running()) fmt::print(stderr, "{} output (tail):\n{}\n", t->name(), t->tail());
      }
      // The killed process is not checked again; the others must end well.
      for (const auto& t : nodes) all_ok = t->finish() && all_ok;
      for (auto it = redis.rbegin(); it != redis.rend(); ++it) all_ok = (*it)->finish() && all_ok;
    } else if (g1cmd->parsed()) {
      Target t("heraldd", heraldd_argv);
      bool ok = false;
      reports.push_back(run_g1(g1, t, ok));
      all_ok = all_ok && ok;
      if (!ok) fmt::print(stderr, "server output (tail):\n{}\n", t.tail());
      all_ok = t.finish() && all_ok;
    } else {
      bool ok = false;
      {
        Target t("heraldd", heraldd_argv);
        reports.push_back(run_g2(g2, t, ok));
        all_ok = t.finish() && all_ok && ok;
      }
      if (centrifugo) {
        G2Options c = g2;
        c.protocol = G2Options::Protocol::centrifugo;
        herald::gateway::auth::Claims claims;
        claims.user = "bench";
        c.token = herald::gateway::auth::sign_hs256(claims, token_secret);
        Target t("heraldd (centrifugo)", heraldd_argv);
        reports.push_back(run_g2(c, t, ok));
        all_ok = t.finish() && all_ok && ok;
      }
      if (tls) {
        const TlsFiles files = make_certificate(openssl_cli);
        std::vector<std::string> tls_argv = heraldd_argv;
        tls_argv.insert(tls_argv.end(),
                        {"--server.tls_cert_file", files.cert, "--server.tls_key_file", files.key});
        // The client does not verify: what is measured is the server's
        // side, and the certificate was made a moment ago for this run.
        boost::asio::ssl::context client(boost::asio::ssl::context::tls_client);
        client.set_verify_mode(boost::asio::ssl::verify_none);
        G2Options tls_options = g2;
        tls_options.tls = &client;
        {
          Target t("heraldd (tls)", tls_argv);
          reports.push_back(run_g2(tls_options, t, ok));
          all_ok = t.finish() && all_ok && ok;
        }
        std::filesystem::remove_all(files.dir);
      }
      struct Reference {
        std::string key, name, script;
      };
      for (const Reference& r : {Reference{"uws", "reference (uWS.js)", uws_script},
                                 Reference{"ws", "reference (node ws)", reference_script}}) {
        if (no_reference || (reference != "both" && reference != r.key)) continue;
        Target ref(r.name, {node, r.script, "0"});
        G2Options ref_options = g2;
        // Node.js runs JavaScript on one thread, and uWS.js its event loop too.
        ref_options.server_threads = 1;
        reports.push_back(run_g2(ref_options, ref, ok));
        all_ok = ref.finish() && all_ok && ok;
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "herald-bench: {}\n", e.what());
    return 2;
  }

  std::string json = "[";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (i) json += ",";
    json += reports[i].json();
    fmt::print(stderr, "\n{}\n", reports[i].table());
  }
  json += "]";
  fmt::print("{}\n", json);
  if (!json_path.empty()) std::ofstream(json_path) << json << "\n";
  if (!all_ok) {
    fmt::print(stderr,
               "herald-bench: a correctness figure failed or a server did not end well "
               "(see above)\n");
  }
  return all_ok ? 0 : 1;
}
