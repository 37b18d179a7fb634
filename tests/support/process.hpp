// A real child process for tests: argv and environment in, merged
// stdout+stderr captured line by line, signals, bounded waits. Destroying a
// ChildProcess that still runs kills it (SIGKILL) and reaps it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace herald::test {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the test's environment minus every HERALD_*
  // variable, plus `env` ("NAME=value" entries).
  ChildProcess(std::vector<std::string> argv, std::vector<std::string> env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  // The first output line matching `pattern`, waiting up to `timeout`;
  // nullopt if the process exits or the time runs out first.
  std::optional<std::string> wait_for_line(const std::regex& pattern,
                                           std::chrono::milliseconds timeout);
  void signal(int signo);
  // The port a server child prints once it listens: the first group of
  // `pattern` on the first matching line, within 30 s. 0 (and a test
  // failure naming `what`, with the output) if it never does.
  std::uint16_t wait_for_port(const std::regex& pattern, const std::string& what);
  // The exit code (or 128 + signal number if killed), or nullopt on timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // Everything printed so far.
  [[nodiscard]] std::string output() const;

 private:
  void read_loop(int fd);

  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::string output_;
  bool eof_ = false;
  std::thread reader_;
};

// Runs a command to completion (bounded), returning exit code and output.
struct RunResult {
  int exit_code = -1;
  std::string output;
};
RunResult run(std::vector<std::string> argv, std::vector<std::string> env = {},
              std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace herald::test
