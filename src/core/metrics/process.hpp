// The standard Prometheus process metrics, read from /proc at scrape time:
// process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_open_fds, process_max_fds,
// process_start_time_seconds, process_threads.
#pragma once

#include <cstdint>
#include <optional>

#include "core/metrics/registry.hpp"

namespace herald::metrics {

struct ProcessStats {
  double cpu_seconds = 0;  // user + system
  std::uint64_t resident_bytes = 0;
  std::uint64_t virtual_bytes = 0;
  std::uint64_t threads = 0;
  double start_time_seconds = 0;  // since the Unix epoch
};

// Reads /proc/<pid>/stat (pid 0: this process). nullopt if it cannot.
[[nodiscard]] std::optional<ProcessStats> read_process_stats(int pid = 0);

void register_process_metrics(Registry& registry);

}  // namespace herald::metrics
