// A real redis-server for tests: started on a free loopback port in a
// temporary directory, killed with SIGKILL and restarted on the same port
// on demand. Tests never mock Redis.
//
// The binary is /usr/bin/redis-server (Debian's redis-server package, which
// scripts/setup.sh installs); when it is missing the constructor throws
// with that hint, so the test fails and says why.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "redis/options.hpp"
#include "redis/reply.hpp"
#include "support/process.hpp"

namespace herald::test {

inline constexpr const char* kRedisServerPath = "/usr/bin/redis-server";

// A loopback port the kernel just handed out and released; a server binds
// it a moment later (callers retry on the rare collision).
[[nodiscard]] std::uint16_t free_port();

class RedisServer {
 public:
  // persist: append-only file fsynced on every write, so data survives
  // kill(); otherwise nothing is persisted.
  explicit RedisServer(bool persist = false);
  // With `cluster`: cluster-enabled (its node file in the temporary
  // directory, a port below 55536 so that the bus port, +10000, exists);
  // tests form the cluster with redis-cli --cluster create.
  RedisServer(bool persist, bool cluster);
  // With `args` added to its command line ({"--requirepass", "pw"}, an ACL
  // user: {"--user", "alice", "on", ">pw", "~*", "&*", "+@all"}); command()
  // authenticates as `admin` first. `cluster` as above.
  RedisServer(std::vector<std::string> args, redis::Credentials admin, bool cluster = false);
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  // SIGKILL and reap: the server vanishes mid-conversation, as in a crash.
  void kill();
  // Starts again on the same port and directory; throws if it does not
  // come up.
  void start();
  void signal(int signo);
  // One command over a fresh blocking hiredis connection (test set-up and
  // inspection; never the code under test). Throws if Redis is unreachable.
  redis::Reply command(const std::vector<std::string>& argv) const;
  // How many times the server ran `name` ("eval"), from INFO commandstats.
  [[nodiscard]] std::int64_t calls(const std::string& name) const;

 private:
  void start_fresh();  // a free port, a temporary directory, started
  bool try_start();
  bool persist_;
  bool cluster_ = false;
  std::vector<std::string> args_;
  redis::Credentials admin_;
  std::uint16_t port_ = 0;
  std::string dir_;
  std::unique_ptr<ChildProcess> proc_;
};

}  // namespace herald::test
