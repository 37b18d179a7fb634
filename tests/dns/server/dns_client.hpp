// A plain DNS client for process tests: one query over UDP or TCP to a
// loopback port, with a receive timeout (a bound on a hung test, not a
// measurement). POSIX sockets, nothing shared with the server's code.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace herald::dns::test {

class Socket {
 public:
  explicit Socket(int type) : fd_(::socket(AF_INET, type, 0)) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

  // Sends from this loopback address (127.x.y.z: every one is local), so
  // that a test can be clients of several networks.
  bool bind_source(const char* ipv4) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    if (::inet_pton(AF_INET, ipv4, &a.sin_addr) != 1) return false;
    return ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }

  bool connect(std::uint16_t port, std::chrono::milliseconds timeout) {
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  bool send_all(std::span<const std::uint8_t> d) {
    while (!d.empty()) {
      ssize_t n = ::send(fd_, d.data(), d.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      d = d.subspan(static_cast<std::size_t>(n));
    }
    return true;
  }
  // Reads exactly n octets; false on EOF, error or timeout.
  bool read_exact(std::uint8_t* p, std::size_t n) {
    while (n > 0) {
      ssize_t r = ::recv(fd_, p, n, 0);
      if (r <= 0) return false;
      p += r;
      n -= static_cast<std::size_t>(r);
    }
    return true;
  }

 private:
  int fd_;
};

inline constexpr std::chrono::milliseconds kTimeout{5000};

// A loopback port free on both UDP and TCP at the time of asking, for a
// reference server that cannot be told to pick one and report it (NSD,
// Knot). Another process may take it before the server binds; rare enough.
inline std::uint16_t free_port() {
  for (int attempt = 0; attempt < 20; ++attempt) {
    Socket u(SOCK_DGRAM);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // Safety: sockaddr_in is the sockaddr of AF_INET; the kernel reads
    // `sizeof a` octets.
    if (::bind(u.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) continue;
    socklen_t len = sizeof a;
    ::getsockname(u.fd(), reinterpret_cast<sockaddr*>(&a), &len);
    Socket t(SOCK_STREAM);
    if (::bind(t.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return ntohs(a.sin_port);
  }
  return 0;
}

inline std::optional<std::vector<std::uint8_t>> udp_query(
    std::uint16_t port, std::span<const std::uint8_t> q,
    std::chrono::milliseconds timeout = kTimeout) {
  Socket s(SOCK_DGRAM);
  if (!s.connect(port, timeout) || ::send(s.fd(), q.data(), q.size(), 0) < 0) return std::nullopt;
  std::vector<std::uint8_t> buf(65535);
  ssize_t n = ::recv(s.fd(), buf.data(), buf.size(), 0);
  if (n < 0) return std::nullopt;
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

// Writes a length-prefixed message on a TCP stream.
inline bool tcp_send(Socket& s, std::span<const std::uint8_t> q) {
  std::vector<std::uint8_t> framed{static_cast<std::uint8_t>(q.size() >> 8),
                                   static_cast<std::uint8_t>(q.size())};
  framed.insert(framed.end(), q.begin(), q.end());
  return s.send_all(framed);
}

inline std::optional<std::vector<std::uint8_t>> tcp_receive(Socket& s) {
  std::uint8_t len[2];
  if (!s.read_exact(len, 2)) return std::nullopt;
  std::vector<std::uint8_t> m(static_cast<std::size_t>(len[0] << 8 | len[1]));
  if (!s.read_exact(m.data(), m.size())) return std::nullopt;
  return m;
}

inline std::optional<std::vector<std::uint8_t>> tcp_query(std::uint16_t port,
                                                          std::span<const std::uint8_t> q) {
  Socket s(SOCK_STREAM);
  if (!s.connect(port, kTimeout) || !tcp_send(s, q)) return std::nullopt;
  return tcp_receive(s);
}

}  // namespace herald::dns::test
