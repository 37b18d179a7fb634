// A fault injector in front of a real redis-server, for what a real Redis
// Cluster cannot be made to do on demand: redirect one command again and
// again. It listens on a loopback port and passes every command of every
// connection on to the real Redis, with two changes:
//   - CLUSTER SLOTS is answered with a map giving every slot to this
//     injector, so a heraldd in cluster topology takes it for the whole
//     cluster (and the Redis behind it may be a plain one);
//   - while redirections are armed (redirect()), a script (EVAL, EVALSHA)
//     whose first key is the armed key is answered `MOVED <slot>
//     127.0.0.1:<this port>` instead of being run: a redirection to the
//     node that sent it, which a cluster client follows like any other.
// The answers are made by the Redis behind (a one-line script returning the
// reply), so they keep their place among the connection's pipelined
// replies; the injector only rewrites commands and copies replies back.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace herald::test {

class RedirectingRedis {
 public:
  explicit RedirectingRedis(std::uint16_t redis_port);
  ~RedirectingRedis();
  RedirectingRedis(const RedirectingRedis&) = delete;
  RedirectingRedis& operator=(const RedirectingRedis&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  // The next `times` scripts whose first key is `key` are answered MOVED
  // `slot`; received() counts them from zero again.
  void redirect(const std::string& key, std::uint16_t slot, int times);
  // Scripts with the armed key received since redirect(): redirected or
  // passed on.
  [[nodiscard]] int received() const { return received_.load(); }

 private:
  void accept_loop();
  void serve(int client, int redis);
  // The command to send to Redis in place of `argv`.
  std::vector<std::string> rewrite(std::vector<std::string> argv);

  std::uint16_t redis_port_;
  std::uint16_t port_ = 0;
  int listener_ = -1;
  std::mutex mu_;
  std::string key_;  // guarded by mu_
  std::uint16_t slot_ = 0;
  int left_ = 0;
  std::atomic<int> received_{0};
  std::vector<int> sockets_;          // guarded by mu_: shut down on destruction
  std::vector<std::thread> threads_;  // guarded by mu_
  std::thread acceptor_;
};

}  // namespace herald::test
