#include "redirecting_redis.hpp"

#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>

namespace herald::test {
namespace {

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    // Safety: n > 0 here, and at most the size asked for.
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string resp_command(const std::vector<std::string>& argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (const auto& a : argv) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  // Safety: sockaddr_in is the sockaddr of AF_INET; connect reads sizeof addr bytes.
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

RedirectingRedis::RedirectingRedis(std::uint16_t redis_port) : redis_port_(redis_port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  // Safety: sockaddr_in is the sockaddr of AF_INET, of the size passed.
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if (listener_ < 0 || ::bind(listener_, sa, sizeof addr) != 0 || ::listen(listener_, 64) != 0 ||
      ::getsockname(listener_, sa, &len) != 0) {
    if (listener_ >= 0) ::close(listener_);
    throw std::runtime_error("RedirectingRedis: cannot listen on loopback");
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

RedirectingRedis::~RedirectingRedis() {
  ::shutdown(listener_, SHUT_RDWR);  // accept() returns
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    for (int fd : sockets_) ::shutdown(fd, SHUT_RDWR);  // every copy loop ends
    threads = std::move(threads_);
  }
  for (auto& t : threads) t.join();
  for (int fd : sockets_) ::close(fd);
  ::close(listener_);
}

void RedirectingRedis::redirect(const std::string& key, std::uint16_t slot, int times) {
  std::lock_guard lock(mu_);
  key_ = key;
  slot_ = slot;
  left_ = times;
  received_ = 0;
}

void RedirectingRedis::accept_loop() {
  for (;;) {
    const int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0) return;
    const int redis = connect_loopback(redis_port_);
    std::lock_guard lock(mu_);
    sockets_.push_back(client);
    if (redis < 0) {
      ::shutdown(client, SHUT_RDWR);
      continue;
    }
    sockets_.push_back(redis);
    threads_.emplace_back([this, client, redis] { serve(client, redis); });
  }
}

void RedirectingRedis::serve(int client, int redis) {
  // Replies (and pub/sub messages) go back as they come.
  std::thread back([client, redis] {
    char buf[16384];
    for (;;) {
      const ssize_t n = ::recv(redis, buf, sizeof buf, 0);
      // Safety: n > 0 here, and at most sizeof buf.
      if (n <= 0 || !write_all(client, std::string(buf, static_cast<std::size_t>(n)))) break;
    }
    ::shutdown(client, SHUT_RDWR);
  });
  // Commands are read whole (hiredis's RESP reader: a client's command is
  // an array of bulk strings), rewritten, and sent on in order.
  std::unique_ptr<redisReader, decltype(&redisReaderFree)> reader(redisReaderCreate(),
                                                                  &redisReaderFree);
  char buf[16384];
  bool open = true;
  while (open) {
    const ssize_t n = ::recv(client, buf, sizeof buf, 0);
    // Safety: n > 0 here, and at most sizeof buf.
    if (n <= 0 || redisReaderFeed(reader.get(), buf, static_cast<std::size_t>(n)) != REDIS_OK)
      break;
    for (;;) {
      void* parsed = nullptr;
      if (redisReaderGetReply(reader.get(), &parsed) != REDIS_OK) {
        open = false;
        break;
      }
      if (parsed == nullptr) break;  // the rest of the command has not arrived
      // Safety: the default reader builds redisReply objects.
      auto* r = static_cast<redisReply*>(parsed);
      std::vector<std::string> argv;
      if (r->type == REDIS_REPLY_ARRAY) {
        for (std::size_t i = 0; i < r->elements; ++i)
          argv.emplace_back(r->element[i]->str, r->element[i]->len);
      }
      freeReplyObject(r);
      if (argv.empty() || !write_all(redis, resp_command(rewrite(std::move(argv))))) {
        open = false;
        break;
      }
    }
  }
  ::shutdown(redis, SHUT_RDWR);
  back.join();
}

std::vector<std::string> RedirectingRedis::rewrite(std::vector<std::string> argv) {
  const auto is = [&](std::size_t i, const char* word) {
    return argv.size() > i && strcasecmp(argv[i].c_str(), word) == 0;
  };
  if (is(0, "CLUSTER") && is(1, "SLOTS"))
    return {"EVAL", "return {{0, 16383, {'127.0.0.1', " + std::to_string(port_) + "}}}", "0"};
  if ((is(0, "EVALSHA") || is(0, "EVAL")) && argv.size() >= 4) {
    std::lock_guard lock(mu_);
    if (!key_.empty() && argv[3] == key_) {
      ++received_;
      if (left_ > 0) {
        --left_;
        return {"EVAL",
                "return redis.error_reply('MOVED " + std::to_string(slot_) +
                    " 127.0.0.1:" + std::to_string(port_) + "')",
                "0"};
      }
    }
  }
  return argv;
}

}  // namespace herald::test
