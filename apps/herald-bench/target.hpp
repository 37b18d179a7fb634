// The server under test: a child process the bench starts (heraldd, one of
// the Node.js reference servers, or redis-server for G3), whose port it
// reads from the "listening" log line and whose CPU time it reads from
// /proc/<pid>/stat. A run counts only if the server also ends well: finish()
// stops it with SIGTERM and reports a non-zero exit or a sanitizer report,
// so a crash or a leak at shutdown fails the bench instead of passing
// unseen. The process dies with the bench (herald::process::Child).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/process/child.hpp"

namespace herald::bench {

class Target {
 public:
  // Starts argv and waits (up to 30 s) for "listening addr=127.0.0.1:PORT".
  // Throws std::runtime_error with the process's output if it does not come.
  Target(std::string name, std::vector<std::string> argv);
  // The same for a process that prints `ready` (a regex) once it listens on
  // `port`, which the caller chose (redis-server for G3).
  Target(std::string name, std::vector<std::string> argv, const std::string& ready,
         std::uint16_t port);
  // A Target not finished (the bench failed on the way) is stopped
  // unchecked.
  ~Target();
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] pid_t pid() const { return child_.pid(); }
  // User + system CPU seconds the process has used so far.
  [[nodiscard]] double cpu_seconds() const;
  // The last lines it printed (for diagnostics).
  [[nodiscard]] std::string tail() const;
  // Everything it printed that is still kept (the last MiB).
  [[nodiscard]] std::string output() const { return child_.output(); }
  // SIGTERM, up to 15 s for the exit (SIGKILL after); true if it exited 0
  // without a sanitizer report, else false with the reason and its output's
  // tail on stderr. One killed on purpose (kill()) is not checked again.
  bool finish();
  // SIGKILL now, as in a crash (G3's node death), and reap.
  void kill();
  [[nodiscard]] bool running() const { return !child_.exited(); }

 private:
  std::string name_;
  process::Child child_;
  std::uint16_t port_ = 0;
  bool killed_ = false;
};

// A loopback port free right now (bound and released), for a child that
// needs its port on the command line.
[[nodiscard]] std::uint16_t free_port();

// One value of a heraldd's /metrics (a series name with its labels as
// printed); NaN if it cannot be read.
[[nodiscard]] double scrape_metric(std::uint16_t port, const std::string& series);

// One command to the Redis (or Sentinel) on 127.0.0.1:`port`, waiting up to
// `timeout`: its reply as RESP text (bulk strings and nested arrays read
// whole), or "" when it cannot be had. The bench only looks for text in it
// ("master_link_status:up", a port), so it is not parsed further.
[[nodiscard]] std::string redis_ask(std::uint16_t port, const std::vector<std::string>& argv,
                                    std::chrono::milliseconds timeout);
// The integer after `key` ("master_repl_offset:") in an INFO reply; -1 if
// absent.
[[nodiscard]] long long info_field(const std::string& info, const std::string& key);

// CPU seconds of this process (the load generator).
[[nodiscard]] double self_cpu_seconds();

// Whole-machine CPU time from /proc/stat: busy and total jiffies, all cores.
struct MachineCpu {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
};
[[nodiscard]] MachineCpu machine_cpu();
// Percent of all cores busy between two readings (any process: this one,
// the server, and whatever else runs on the machine).
[[nodiscard]] double machine_busy_percent(const MachineCpu& a, const MachineCpu& b);

}  // namespace herald::bench
