// Wall-clock time as Unix seconds and milliseconds: what tokens (exp, nbf),
// the connect hook's expire_at and stored timestamps are written in. Not
// for measuring durations (steady_clock is).
#pragma once

#include <chrono>
#include <cstdint>

namespace herald {

inline std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline std::uint64_t unix_now_ms() {
  // Safety: milliseconds since 1970 are positive and far below 2^63.
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace herald
