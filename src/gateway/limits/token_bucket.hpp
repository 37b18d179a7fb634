// A token bucket: `rate` tokens a second, holding at most `burst`, full at
// the start. Each allowed action takes one token; with none left the action
// is refused (the caller answers 111, or drops a push and counts it).
//
// Every rate in the gateway is one of these (client.publish_rate,
// client.command_rate, a room's join_leave_rate), so the refill arithmetic
// lives here once. The clock is passed in (steady nanoseconds): the bucket
// is pure, and a caller already holding `now` does not read the clock
// again.
//
// Single-threaded: a bucket belongs to one connection or one room, touched
// only by the thread that owns it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace herald::gateway::limits {

class TokenBucket {
 public:
  TokenBucket(std::uint32_t rate, std::uint32_t burst, std::int64_t now_ns)
      : rate_(rate), burst_(burst), tokens_(burst), at_ns_(now_ns) {}

  // Takes one token if there is one.
  [[nodiscard]] bool take(std::int64_t now_ns) {
    if (now_ns > at_ns_) {
      tokens_ = tokens_at(now_ns);
      at_ns_ = now_ns;
    }
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

  // Whether the bucket would be full at `now_ns`: a full bucket is the same
  // as a new one, so its owner may forget it.
  [[nodiscard]] bool full(std::int64_t now_ns) const { return tokens_at(now_ns) >= burst_; }

  [[nodiscard]] std::uint32_t rate() const { return rate_; }
  [[nodiscard]] std::uint32_t burst() const { return burst_; }

 private:
  std::uint32_t rate_;
  std::uint32_t burst_;
  double tokens_;  // fractional: refills accrue between takes
  std::int64_t at_ns_;

  // The tokens held at `now_ns` (a clock that went back adds none).
  [[nodiscard]] double tokens_at(std::int64_t now_ns) const {
    if (now_ns <= at_ns_) return tokens_;
    // Safety: a difference of steady nanoseconds, positive here, as a
    // double: exact below 2^53 ns (104 days), close enough above.
    const double elapsed_s = static_cast<double>(now_ns - at_ns_) / 1e9;
    return std::min<double>(burst_, tokens_ + rate_ * elapsed_s);
  }
};

}  // namespace herald::gateway::limits
