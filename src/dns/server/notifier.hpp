// Sends NOTIFY (notify.hpp) for changed zones to every configured secondary,
// over UDP, from a thread of its own so a reload never waits for the
// network. Each (zone, secondary) pair is retried until the secondary
// answers with a matching ID, at most `attempts` times, `interval` apart
// (RFC 1996 §3.6 asks for retransmission; the bounds are ours).
#pragma once

#include <boost/asio/ip/udp.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "dns/zone.hpp"

namespace herald::dns {

class Notifier {
 public:
  Notifier(std::vector<boost::asio::ip::udp::endpoint> secondaries, unsigned attempts = 5,
           std::chrono::milliseconds interval = std::chrono::milliseconds(1000));
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  // Queues NOTIFY for each zone to each secondary and returns at once. A
  // round still running for an earlier reload is finished first.
  void notify(std::vector<std::shared_ptr<const Zone>> zones);
  // Waits for every queued round to end (tests; shutdown).
  void join();

  bool empty() const noexcept { return secondaries_.empty(); }
  std::uint64_t sent() const noexcept { return sent_.load(std::memory_order_relaxed); }
  std::uint64_t acknowledged() const noexcept { return acked_.load(std::memory_order_relaxed); }
  std::uint64_t failed() const noexcept { return failed_.load(std::memory_order_relaxed); }

 private:
  void run(const std::vector<std::shared_ptr<const Zone>>& zones);

  std::vector<boost::asio::ip::udp::endpoint> secondaries_;
  unsigned attempts_;
  std::chrono::milliseconds interval_;
  std::thread worker_;
  std::atomic<std::uint64_t> sent_{0}, acked_{0}, failed_{0};
  std::uint16_t next_id_ = 1;
};

}  // namespace herald::dns
