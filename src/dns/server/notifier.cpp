#include "dns/server/notifier.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <map>

#include "dns/notify.hpp"

namespace herald::dns {

namespace asio = boost::asio;
using asio::ip::udp;

Notifier::Notifier(std::vector<udp::endpoint> secondaries, unsigned attempts,
                   std::chrono::milliseconds interval)
    : secondaries_(std::move(secondaries)), attempts_(attempts), interval_(interval) {}

Notifier::~Notifier() {
  join();
}

void Notifier::join() {
  if (worker_.joinable()) worker_.join();
}

void Notifier::notify(std::vector<std::shared_ptr<const Zone>> zones) {
  if (secondaries_.empty() || zones.empty()) return;
  join();  // one round at a time: reloads are rare, rounds are short
  worker_ = std::thread([this, z = std::move(zones)] { run(z); });
}

void Notifier::run(const std::vector<std::shared_ptr<const Zone>>& zones) {
  struct Pending {
    std::vector<std::uint8_t> message;
    udp::endpoint to;
    unsigned tries = 0;
  };
  asio::io_context io(1);
  boost::system::error_code ec;
  // One socket per address family in use.
  udp::socket v4(io), v6(io);
  std::map<std::uint16_t, Pending> pending;  // by message ID
  for (const auto& zone : zones) {
    for (const udp::endpoint& to : secondaries_) {
      std::uint16_t id = next_id_++;
      if (next_id_ == 0) next_id_ = 1;
      pending[id] = Pending{notify_message(*zone, id), to, 0};
    }
  }
  auto socket_for = [&](const udp::endpoint& to) -> udp::socket& {
    udp::socket& s = to.address().is_v4() ? v4 : v6;
    if (!s.is_open()) {
      s.open(to.protocol(), ec);
      s.non_blocking(true, ec);
    }
    return s;
  };
  for (unsigned round = 0; round < attempts_ && !pending.empty(); ++round) {
    for (auto& [id, p] : pending) {
      socket_for(p.to).send_to(asio::buffer(p.message), p.to, 0, ec);
      ++p.tries;
      sent_.fetch_add(1, std::memory_order_relaxed);
    }
    // Collect answers until the interval ends. poll() bounds the wait; this
    // thread does nothing else.
    auto until = std::chrono::steady_clock::now() + interval_;
    while (!pending.empty()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd fds[2];
      nfds_t n = 0;
      for (udp::socket* s : {&v4, &v6}) {
        if (s->is_open()) fds[n++] = {s->native_handle(), POLLIN, 0};
      }
      if (::poll(fds, n, static_cast<int>(left.count())) <= 0) break;
      for (udp::socket* s : {&v4, &v6}) {
        if (!s->is_open()) continue;
        std::uint8_t buf[512];
        udp::endpoint from;
        for (;;) {
          std::size_t got = s->receive_from(asio::buffer(buf), from, 0, ec);
          if (ec) break;
          if (got < 12 || (buf[2] & 0x80) == 0) continue;  // not a response
          std::uint16_t id = static_cast<std::uint16_t>(buf[0] << 8 | buf[1]);
          auto it = pending.find(id);
          if (it == pending.end() || it->second.to.address() != from.address()) continue;
          pending.erase(it);
          acked_.fetch_add(1, std::memory_order_relaxed);
        }
      }
    }
  }
  failed_.fetch_add(pending.size(), std::memory_order_relaxed);
}

}  // namespace herald::dns
