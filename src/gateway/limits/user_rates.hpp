// A token bucket per user (limits/token_bucket.hpp), shared by every shard:
// the rate of requests that have no connection to keep a bucket on (HTTP
// publishes of the SSE fallback: client.publish_rate per user, whichever
// connection and shard each request comes by).
//
// Bounded: past max_users tracked, idle users (a full bucket: forgetting
// them changes nothing) are dropped; if all are busy the bucket of a new
// user is still made, so the map stays within max_users plus the users
// active within one refill. Thread-safe (one mutex; HTTP publishes are
// not the fast path).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "gateway/limits/token_bucket.hpp"

namespace herald::gateway::limits {

class UserRates {
 public:
  // `rate` a second, with a burst of `rate`.
  UserRates(std::uint32_t rate, std::size_t max_users) : rate_(rate), max_users_(max_users) {}

  // Takes one of `user`'s tokens at `now_ns` (steady nanoseconds); false
  // when none is left.
  [[nodiscard]] bool take(const std::string& user, std::int64_t now_ns);
  [[nodiscard]] std::uint32_t rate() const { return rate_; }
  [[nodiscard]] std::uint32_t burst() const { return rate_; }

 private:
  const std::uint32_t rate_;
  const std::size_t max_users_;
  std::mutex mutex_;
  std::unordered_map<std::string, TokenBucket> buckets_;
};

}  // namespace herald::gateway::limits
