// A real Redis Sentinel deployment for tests: a master, one replica in
// sync with it, and one Sentinel (quorum 1, down-after 1 s) monitoring it
// as "herald", all redis-servers on loopback (the Sentinel is
// `redis-server <conf> --sentinel`, the binary Debian's redis-sentinel
// package runs too). fail_over() SIGKILLs the master and waits for the
// Sentinel to promote the replica.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <regex>
#include <string>

#include "redis_server.hpp"
#include "support/eventually.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace herald::test {

struct RedisSentinel {
  static constexpr const char* kName = "herald";

  RedisSentinel()
      // No diskless-sync delay: the replica syncs at once, not 5 s later.
      : master({"--repl-diskless-sync-delay", "0"}, {}),
        replica({"--replicaof", "127.0.0.1", std::to_string(master.port()),
                 "--repl-diskless-sync-delay", "0"},
                {}) {
    EXPECT_TRUE(eventually(
        [&] {
          return replica.command({"INFO", "replication"}).str.find("master_link_status:up") !=
                 std::string::npos;
        },
        std::chrono::seconds(20)))
        << "the replica did not sync";
    for (int attempt = 0; attempt < 5 && !sentinel; ++attempt) start_sentinel();
    EXPECT_TRUE(sentinel) << "redis-server --sentinel did not start";
    EXPECT_TRUE(
        eventually([&] { return master_port() == master.port(); }, std::chrono::seconds(20)));
  }

  // The master's port as the Sentinel names it now (0: none yet).
  [[nodiscard]] std::uint16_t master_port() const {
    RunResult r = run({"/usr/bin/redis-cli", "-p", std::to_string(port), "SENTINEL",
                       "get-master-addr-by-name", kName});
    std::smatch m;
    if (!std::regex_search(r.output, m, std::regex("\n([0-9]+)\n"))) return 0;
    return static_cast<std::uint16_t>(std::stoul(m[1]));
  }
  // The replica has applied everything the master has written (their
  // replication offsets are equal).
  [[nodiscard]] bool replica_in_step() const {
    auto offset = [](const std::string& info, const std::string& key) {
      std::smatch m;
      return std::regex_search(info, m, std::regex(key + ":([0-9]+)")) ? m[1].str() : "";
    };
    const std::string want =
        offset(master.command({"INFO", "replication"}).str, "master_repl_offset");
    return !want.empty() &&
           offset(replica.command({"INFO", "replication"}).str, "slave_repl_offset") == want;
  }
  // SIGKILLs the master; returns once the Sentinel names the replica and
  // the replica says it is a master.
  void fail_over() {
    master.kill();
    EXPECT_TRUE(eventually(
        [&] {
          return master_port() == replica.port() &&
                 replica.command({"INFO", "replication"}).str.find("role:master") !=
                     std::string::npos;
        },
        std::chrono::seconds(30)))
        << "the Sentinel did not promote the replica";
  }
  [[nodiscard]] std::string address() const { return "127.0.0.1:" + std::to_string(port); }

  RedisServer master;
  RedisServer replica;
  TempDir dir{"herald-sentinel"};
  std::uint16_t port = 0;
  std::unique_ptr<ChildProcess> sentinel;

 private:
  void start_sentinel() {
    port = free_port();
    // The Sentinel rewrites its file with what it learns: it must be its own.
    const std::string conf = dir.path.string() + "/sentinel-" + std::to_string(port) + ".conf";
    std::ofstream(conf) << "port " << port << "\nbind 127.0.0.1\ndir " << dir.path.string()
                        << "\nsentinel monitor " << kName << " 127.0.0.1 " << master.port()
                        << " 1\nsentinel down-after-milliseconds " << kName
                        << " 1000\nsentinel failover-timeout " << kName << " 5000\n";
    sentinel = std::make_unique<ChildProcess>(
        std::vector<std::string>{kRedisServerPath, conf, "--sentinel"});
    if (!sentinel->wait_for_line(std::regex("\\+monitor master"), std::chrono::seconds(20)))
      sentinel.reset();
  }
};

}  // namespace herald::test
