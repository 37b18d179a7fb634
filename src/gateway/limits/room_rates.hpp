// A rate per room name, for state that comes and goes faster than the rate
// it must enforce.
//
// In cluster mode a node keeps a room's state only while it has local
// subscribers (broker/redis_broker.hpp), so a client alone on its node that
// churns subscribe/unsubscribe gets fresh state, and a fresh join/leave
// bucket, on every cycle; its pushes reach the room's members on the other
// nodes all the same. The buckets therefore live here, by name, apart from
// the room state, and are forgotten only once full again (a full bucket is
// the same as a new one: forgetting it changes nothing).
//
// Bounded: a bucket stays while it is below full, i.e. for at most
// burst / rate seconds after its last take (1 s at the defaults). Full
// buckets are swept whenever the map has doubled since the last sweep, so
// it holds about twice the names used in that window, however many names a
// client goes through.
//
// Single-threaded: owned by the broker thread.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "gateway/limits/token_bucket.hpp"

namespace herald::gateway::limits {

class RoomRates {
 public:
  // Takes a token from `room`'s bucket (rate and burst `rate`, created full).
  [[nodiscard]] bool take(const std::string& room, std::uint32_t rate, std::int64_t now_ns) {
    auto it = buckets_.find(room);
    if (it == buckets_.end()) {
      if (buckets_.size() >= sweep_at_) sweep(now_ns);
      it = buckets_.try_emplace(room, rate, rate, now_ns).first;
    }
    return it->second.take(now_ns);
  }

  [[nodiscard]] std::size_t size() const { return buckets_.size(); }

 private:
  void sweep(std::int64_t now_ns) {
    std::erase_if(buckets_, [now_ns](const auto& kv) { return kv.second.full(now_ns); });
    sweep_at_ = std::max<std::size_t>(kMinSweep, 2 * buckets_.size());
  }

  static constexpr std::size_t kMinSweep = 1024;
  std::unordered_map<std::string, TokenBucket> buckets_;
  std::size_t sweep_at_ = kMinSweep;
};

}  // namespace herald::gateway::limits
