// A real Redis Cluster for tests: three cluster-enabled redis-servers on
// loopback formed with redis-cli --cluster create (no replicas), plus the
// steps an operator's resharding takes (a slot's migration in two steps,
// a master added), done with Redis's own commands. Used by the cluster
// broker's tests and the keyword store's.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "redis/cluster_slots.hpp"
#include "redis_server.hpp"
#include "support/eventually.hpp"
#include "support/process.hpp"

namespace herald::test {

struct RedisCluster {
  // Each node started with `args` (e.g. requirepass); `admin` is who the
  // test (redis-cli, RedisServer::command) authenticates as.
  explicit RedisCluster(std::vector<std::string> node_args = {}, redis::Credentials who = {})
      : args(std::move(node_args)), admin(std::move(who)) {
    for (int i = 0; i < 3; ++i) nodes.push_back(std::make_unique<RedisServer>(args, admin, true));
    std::vector<std::string> argv = {"/usr/bin/redis-cli", "--cluster", "create"};
    for (const auto& n : nodes) argv.push_back("127.0.0.1:" + std::to_string(n->port()));
    argv.insert(argv.end(), {"--cluster-replicas", "0", "--cluster-yes"});
    RunResult r = cli(argv);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const auto& n : nodes) {
      EXPECT_TRUE(eventually(
          [&] {
            return n->command({"CLUSTER", "INFO"}).str.find("cluster_state:ok") !=
                   std::string::npos;
          },
          std::chrono::seconds(30)))
          << "cluster not ok on " << n->port();
    }
  }
  // redis-cli, authenticated as `admin` (REDISCLI_AUTH rather than --pass,
  // which redis-cli warns about).
  RunResult cli(std::vector<std::string> argv) const {
    if (!admin.username.empty()) argv.insert(argv.end(), {"--user", admin.username});
    std::vector<std::string> env;
    if (!admin.empty()) env.push_back("REDISCLI_AUTH=" + admin.password);
    return run(argv, env, std::chrono::seconds(60));
  }
  // Masters holding any key.
  int masters_holding_keys() const {
    int holding = 0;
    for (const auto& n : nodes) holding += n->command({"DBSIZE"}).integer > 0 ? 1 : 0;
    return holding;
  }
  // The master serving `slot`.
  RedisServer* owner(std::uint16_t slot) const {
    auto map = redis::parse_cluster_slots(nodes[0]->command({"CLUSTER", "SLOTS"}));
    EXPECT_TRUE(map);
    for (const auto& n : nodes)
      if (map && n->port() == map->masters[map->owner[slot]].port) return n.get();
    return nullptr;
  }
  // A master other than `not_this`.
  RedisServer* other(const RedisServer* not_this) const {
    for (const auto& n : nodes)
      if (n.get() != not_this) return n.get();
    return nullptr;
  }
  // A fourth master joins (redis-cli --cluster add-node), with no slots yet.
  RedisServer* add_master() {
    nodes.push_back(std::make_unique<RedisServer>(args, admin, true));
    RunResult r = cli({"/usr/bin/redis-cli", "--cluster", "add-node",
                       "127.0.0.1:" + std::to_string(nodes.back()->port()),
                       "127.0.0.1:" + std::to_string(nodes[0]->port())});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // Known to every node, handshakes done, and the cluster up on each
    // (the new node too: it has learnt the slot map).
    const std::string known = "cluster_known_nodes:" + std::to_string(nodes.size());
    for (const auto& n : nodes) {
      EXPECT_TRUE(eventually(
          [&] {
            const std::string all = n->command({"CLUSTER", "NODES"}).str;
            const std::string info = n->command({"CLUSTER", "INFO"}).str;
            return info.find(known) != std::string::npos &&
                   info.find("cluster_state:ok") != std::string::npos &&
                   all.find("handshake") == std::string::npos &&
                   all.find("disconnected") == std::string::npos;
          },
          std::chrono::seconds(30)))
          << "node " << n->port() << " does not know the new master yet";
    }
    return nodes.back().get();
  }
  // Step 1 of moving `slot` (as redis-cli --cluster reshard does): IMPORTING
  // on the target, MIGRATING on the source, every key of the slot migrated.
  // Commands of the slot are answered ASK by the source from then on.
  void start_migration(std::uint16_t slot, RedisServer& source, RedisServer& target) const {
    const std::string n = std::to_string(slot);
    const std::string source_id = source.command({"CLUSTER", "MYID"}).str;
    const std::string target_id = target.command({"CLUSTER", "MYID"}).str;
    ASSERT_EQ(target.command({"CLUSTER", "SETSLOT", n, "IMPORTING", source_id}).str, "OK");
    ASSERT_EQ(source.command({"CLUSTER", "SETSLOT", n, "MIGRATING", target_id}).str, "OK");
    auto keys = source.command({"CLUSTER", "GETKEYSINSLOT", n, "100"});
    ASSERT_FALSE(keys.elements.empty()) << keys.describe();
    std::vector<std::string> migrate = {
        "MIGRATE", "127.0.0.1", std::to_string(target.port()), "", "0", "5000", "KEYS"};
    for (const auto& k : keys.elements) migrate.push_back(k.str);
    ASSERT_EQ(source.command(migrate).str, "OK");
  }
  // Step 2: the slot is the target's on every master; the source answers MOVED.
  // The target is told first, as CLUSTER SETSLOT's documentation requires:
  // it bumps its config epoch when it takes the slot, so no node's gossip
  // can later hand the slot back to the source. Returns once every master
  // says the target owns the slot, so the next step starts from one map.
  void end_migration(std::uint16_t slot, RedisServer& target) const {
    const std::string target_id = target.command({"CLUSTER", "MYID"}).str;
    std::vector<RedisServer*> order = {&target};
    for (const auto& n : nodes)
      if (n.get() != &target) order.push_back(n.get());
    for (RedisServer* n : order) {
      ASSERT_EQ(n->command({"CLUSTER", "SETSLOT", std::to_string(slot), "NODE", target_id}).str,
                "OK");
    }
    for (const auto& n : nodes) {
      EXPECT_TRUE(eventually(
          [&] {
            auto map = redis::parse_cluster_slots(n->command({"CLUSTER", "SLOTS"}));
            return map && map->masters[map->owner[slot]].port == target.port();
          },
          std::chrono::seconds(30)))
          << "node " << n->port() << " does not see slot " << slot << " on " << target.port();
    }
  }
  std::vector<std::string> args;
  redis::Credentials admin;
  std::vector<std::unique_ptr<RedisServer>> nodes;
};

}  // namespace herald::test
