#include "core/metrics/process.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace herald::metrics {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double boot_time_seconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  while (in >> key) {
    if (key == "btime") {
      double v = 0;
      in >> v;
      return v;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return 0;
}

}  // namespace

std::optional<ProcessStats> read_process_stats(int pid) {
  std::string path = pid == 0 ? "/proc/self/stat" : "/proc/" + std::to_string(pid) + "/stat";
  std::string stat = read_file(path);
  // Field 2 (comm) is in parentheses and may hold spaces: parse after the
  // last ')'. The fields after it start at field 3 (state).
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream in(stat.substr(close + 2));
  std::vector<std::string> f;
  std::string tok;
  while (in >> tok) f.push_back(tok);
  // Indices below are field number - 3 (proc(5)).
  if (f.size() < 22) return std::nullopt;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  ProcessStats s;
  s.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / ticks;          // utime(14) + stime(15)
  s.threads = std::stoull(f[17]);                                         // num_threads(20)
  s.start_time_seconds = boot_time_seconds() + std::stod(f[19]) / ticks;  // starttime(22)
  s.virtual_bytes = std::stoull(f[20]);                                   // vsize(23)
  s.resident_bytes = std::stoull(f[21]) * page;                           // rss(24)
  return s;
}

void register_process_metrics(Registry& r) {
  r.callback(
      "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
      [] { return read_process_stats().value_or(ProcessStats{}).cpu_seconds; }, true);
  r.callback("process_resident_memory_bytes", "Resident memory size in bytes.", [] {
    return static_cast<double>(read_process_stats().value_or(ProcessStats{}).resident_bytes);
  });
  r.callback("process_virtual_memory_bytes", "Virtual memory size in bytes.", [] {
    return static_cast<double>(read_process_stats().value_or(ProcessStats{}).virtual_bytes);
  });
  r.callback("process_threads", "Number of OS threads in the process.", [] {
    return static_cast<double>(read_process_stats().value_or(ProcessStats{}).threads);
  });
  r.callback("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
             [] { return read_process_stats().value_or(ProcessStats{}).start_time_seconds; });
  r.callback("process_open_fds", "Number of open file descriptors.", [] {
    std::error_code ec;
    double n = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      ++n;
    return n;
  });
  r.callback("process_max_fds", "Maximum number of open file descriptors.", [] {
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0.0;
    return static_cast<double>(lim.rlim_cur);
  });
}

}  // namespace herald::metrics
