// Per-process counters of a dictionary store, exported on /metrics by the
// daemon. Relaxed atomics: read by a scrape, written by searches (hits) and
// by the rebuild path; no update takes a lock.
#pragma once

#include <atomic>
#include <cstdint>

namespace herald::match::store {

struct Stats {
  std::atomic<std::uint64_t> hits{0};      // searches answered by a warm engine (0 round trips)
  std::atomic<std::uint64_t> misses{0};    // searches that had to load the dictionary first
  std::atomic<std::uint64_t> rebuilds{0};  // engines built and swapped in
  std::atomic<std::uint64_t> rebuild_failures{0};  // builds that failed; the last good engine stays
  std::atomic<std::uint64_t> rebuild_ns_total{0};  // time spent building, summed
  std::atomic<std::uint64_t> last_rebuild_ns{0};
  std::atomic<std::uint64_t> invalidations{0};  // peer invalidations acted on (pub/sub or backstop)
  // From a peer's write (its timestamp in the invalidation) to the swap of
  // the engine that includes it here, in milliseconds; -1 before the first.
  std::atomic<std::int64_t> last_invalidation_lag_ms{-1};
};

}  // namespace herald::match::store
