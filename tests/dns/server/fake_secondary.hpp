// A secondary name server that a real one cannot imitate: it counts every
// NOTIFY it receives, per message ID, and answers an ID only on its
// `answer_on`-th arrival (never, with 0), so a test sees exactly how often
// the primary sent and when it stopped. A real secondary (NSD) answers the
// first NOTIFY at once and cannot be made to stay silent.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

#include "dns_client.hpp"

namespace herald::dns::test {

class FakeSecondary {
 public:
  explicit FakeSecondary(unsigned answer_on) : answer_on_(answer_on), socket_(SOCK_DGRAM) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // Safety: sockaddr_in is the IPv4 form of sockaddr, as bind and
    // getsockname expect.
    bound_ = ::bind(socket_.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    socklen_t len = sizeof a;
    // Safety: as above.
    ::getsockname(socket_.fd(), reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeSecondary() { stop(); }
  FakeSecondary(const FakeSecondary&) = delete;
  FakeSecondary& operator=(const FakeSecondary&) = delete;

  bool bound() const { return bound_; }
  std::uint16_t port() const { return port_; }

  // Stops answering and counts what is still queued in the socket; after it
  // the counts are final.
  void stop() {
    if (!thread_.joinable()) return;
    stopping_ = true;
    thread_.join();
    while (receive(MSG_DONTWAIT, false)) {
    }
  }

  // NOTIFYs received per message ID (only after stop()).
  const std::map<std::uint16_t, unsigned>& received() const { return received_; }
  unsigned total() const {
    unsigned n = 0;
    for (const auto& [id, count] : received_) n += count;
    return n;
  }
  // Datagrams that were not a NOTIFY query (only after stop()).
  unsigned other() const { return other_; }

 private:
  void serve() {
    while (!stopping_) {
      pollfd p{socket_.fd(), POLLIN, 0};
      // A short poll so stop() is seen; not a measurement.
      if (::poll(&p, 1, 20) > 0) (void)receive(0, true);
    }
  }

  // Reads one datagram; false when none was waiting.
  bool receive(int flags, bool may_answer) {
    std::uint8_t buf[512];
    sockaddr_in from{};
    socklen_t len = sizeof from;
    // Safety: sockaddr_in is the IPv4 form of sockaddr, as recvfrom expects.
    ssize_t n =
        ::recvfrom(socket_.fd(), buf, sizeof buf, flags, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) return false;
    // A NOTIFY query: QR clear, opcode 4 (RFC 1996 §3.3).
    if (n < 12 || (buf[2] & 0x80) != 0 || ((buf[2] >> 3) & 0x0F) != 4) {
      ++other_;
      return true;
    }
    const auto id = static_cast<std::uint16_t>(buf[0] << 8 | buf[1]);
    const unsigned count = ++received_[id];
    if (may_answer && count == answer_on_) {
      // The answer is the query with QR set (RFC 1996 §4.7): same ID and
      // question.
      buf[2] |= 0x80;
      // Safety: as above, for sendto.
      (void)::sendto(socket_.fd(), buf, static_cast<std::size_t>(n), 0,
                     reinterpret_cast<const sockaddr*>(&from), len);
    }
    return true;
  }

  unsigned answer_on_;
  Socket socket_;
  bool bound_ = false;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::map<std::uint16_t, unsigned> received_;
  unsigned other_ = 0;
  std::thread thread_;
};

}  // namespace herald::dns::test
