// proxy.max_in_flight: requests to backends at once on this node, over every
// hook and shard. One atomic counter shared by the shards: a slow backend
// then costs at most this many sockets and pending commands, and a command
// over it is refused at once (error 116, kind busy) rather than queued,
// because a queue in front of a stalled backend only grows.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace herald::gateway::proxy {

class InFlightLimit {
 public:
  explicit InFlightLimit(std::uint32_t max) : max_(max) {}
  InFlightLimit(const InFlightLimit&) = delete;
  InFlightLimit& operator=(const InFlightLimit&) = delete;

  // A slot, released when destroyed (with the request, whichever way it
  // ends). Empty when moved from or refused.
  class Ticket {
   public:
    Ticket() = default;
    explicit Ticket(InFlightLimit* owner) : owner_(owner) {}
    Ticket(Ticket&& o) noexcept : owner_(std::exchange(o.owner_, nullptr)) {}
    Ticket& operator=(Ticket&& o) noexcept {
      if (this != &o) {
        release();
        owner_ = std::exchange(o.owner_, nullptr);
      }
      return *this;
    }
    ~Ticket() { release(); }
    [[nodiscard]] explicit operator bool() const { return owner_ != nullptr; }

   private:
    void release() {
      if (owner_) owner_->in_flight_.fetch_sub(1, std::memory_order_relaxed);
      owner_ = nullptr;
    }
    InFlightLimit* owner_ = nullptr;
  };

  // A ticket, or an empty one when max() requests are in flight.
  [[nodiscard]] Ticket try_acquire() {
    std::uint32_t n = in_flight_.load(std::memory_order_relaxed);
    do {
      if (n >= max_) return Ticket{};
    } while (!in_flight_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed));
    return Ticket{this};
  }

  [[nodiscard]] std::uint32_t max() const { return max_; }
  [[nodiscard]] std::uint32_t in_flight() const {
    return in_flight_.load(std::memory_order_relaxed);
  }

 private:
  const std::uint32_t max_;
  std::atomic<std::uint32_t> in_flight_{0};
};

}  // namespace herald::gateway::proxy
