// Monotonic time as nanoseconds in an int64: what rate buckets, write
// deadlines and the publish-to-write latency are measured in. Not a wall
// clock (unix_clock.hpp is).
#pragma once

#include <chrono>
#include <cstdint>

namespace herald {

inline std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace herald
