// The calling thread's CPU time, for benchmarks that time one thread's work
// (a scan, a replay) and want what other processes do to the machine to
// count as little as it can: CLOCK_THREAD_CPUTIME_ID, in nanoseconds.
#pragma once

#include <time.h>

namespace herald::bench {

inline double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

}  // namespace herald::bench
