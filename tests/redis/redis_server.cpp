#include "redis_server.hpp"

#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <regex>
#include <stdexcept>

#include "redis/argv.hpp"

namespace herald::test {
std::uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

RedisServer::RedisServer(bool persist) : RedisServer(persist, false) {}

RedisServer::RedisServer(std::vector<std::string> args, redis::Credentials admin, bool cluster)
    : persist_(false), cluster_(cluster), args_(std::move(args)), admin_(std::move(admin)) {
  start_fresh();
}

RedisServer::RedisServer(bool persist, bool cluster) : persist_(persist), cluster_(cluster) {
  start_fresh();
}

void RedisServer::start_fresh() {
  if (access(kRedisServerPath, X_OK) != 0) {
    throw std::runtime_error(std::string(kRedisServerPath) +
                             " not found: these tests need a real redis-server (Debian package "
                             "redis-server; scripts/setup.sh installs it)");
  }
  char tmpl[] = "/tmp/herald-redis-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_port();
    while (cluster_ && port_ > 55'000) port_ = free_port();
    if (try_start()) return;
  }
  throw std::runtime_error("redis-server did not start; last output:\n" +
                           (proc_ ? proc_->output() : std::string()));
}

RedisServer::~RedisServer() {
  proc_.reset();  // SIGKILL and reap
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

bool RedisServer::try_start() {
  std::vector<std::string> argv = {kRedisServerPath,
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--dir",
                                   dir_,
                                   "--save",
                                   "",
                                   "--daemonize",
                                   "no",
                                   "--protected-mode",
                                   "no"};
  if (cluster_) {
    argv.insert(argv.end(), {"--cluster-enabled", "yes", "--cluster-config-file",
                             dir_ + "/nodes.conf", "--cluster-node-timeout", "2000"});
  }
  if (persist_) {
    argv.insert(argv.end(), {"--appendonly", "yes", "--appendfsync", "always"});
  } else {
    argv.insert(argv.end(), {"--appendonly", "no"});
  }
  argv.insert(argv.end(), args_.begin(), args_.end());
  proc_ = std::make_unique<ChildProcess>(argv);
  return proc_->wait_for_line(std::regex("Ready to accept connections"), std::chrono::seconds(20))
      .has_value();
}

void RedisServer::kill() {
  if (!proc_) return;
  proc_->signal(SIGKILL);
  (void)proc_->wait_exit(std::chrono::seconds(10));
  proc_.reset();
}

void RedisServer::start() {
  if (!try_start())
    throw std::runtime_error("redis-server did not restart on port " + std::to_string(port_) +
                             "; output:\n" + proc_->output());
}

void RedisServer::signal(int signo) {
  proc_->signal(signo);
}

redis::Reply RedisServer::command(const std::vector<std::string>& argv) const {
  redisContext* c = redisConnect("127.0.0.1", port_);
  if (c == nullptr || c->err != 0) {
    std::string why = c != nullptr ? c->errstr : "out of memory";
    if (c != nullptr) redisFree(c);
    throw std::runtime_error("cannot reach redis-server on port " + std::to_string(port_) + ": " +
                             why);
  }
  auto run = [c](const std::vector<std::string>& command) {
    redis::Argv args(command);
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(c, args.argc(), args.args.data(), args.lens.data()));
    redis::Reply out = redis::from_hiredis(r);
    if (r != nullptr) freeReplyObject(r);
    return out;
  };
  if (const auto auth = admin_.auth_command(); !auth.empty()) {
    redis::Reply ok = run(auth);
    if (ok.is_error()) {
      redisFree(c);
      throw std::runtime_error("test redis-server refused the test's AUTH: " + ok.str);
    }
  }
  redis::Reply out = run(argv);
  redisFree(c);
  return out;
}

std::int64_t RedisServer::calls(const std::string& name) const {
  const std::string stats = command({"INFO", "commandstats"}).str;
  const std::string key = "cmdstat_" + name + ":calls=";
  const std::size_t at = stats.find(key);
  return at == std::string::npos ? 0 : std::stoll(stats.substr(at + key.size()));
}

}  // namespace herald::test
