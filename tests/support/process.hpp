// A real child process for tests: herald::process::Child (merged output read
// line by line, bounded waits, killed with the test) plus what a test needs
// on top: the test's environment minus HERALD_* settings, a port read from a
// log line, and a test failure when the child printed a sanitizer report.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/process/child.hpp"

namespace herald::test {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the test's environment minus every HERALD_*
  // variable, plus `env` ("NAME=value" entries).
  ChildProcess(std::vector<std::string> argv, std::vector<std::string> env = {});
  // Kills it (SIGKILL) if it still runs, then fails the test if its output
  // holds a sanitizer report: a sanitizer build of the child that found a
  // race, a memory error or a leak fails the test that ran it, whatever the
  // test itself checked, and shows the report (halt_on_error ends the child
  // at its first one, so the test may otherwise only see a refused
  // connection).
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] pid_t pid() const { return child_.pid(); }
  // The first output line matching `pattern`, waiting up to `timeout`;
  // nullopt if the process exits or the time runs out first.
  std::optional<std::string> wait_for_line(const std::regex& pattern,
                                           std::chrono::milliseconds timeout) {
    return child_.wait_for_line(pattern, timeout);
  }
  void signal(int signo) { child_.signal(signo); }
  // SIGSTOP, returning once every thread has stopped (process::Child::pause);
  // false if the process had exited.
  bool pause() { return child_.pause(); }
  void resume() { child_.resume(); }
  // The port a server child prints once it listens: the first group of
  // `pattern` on the first matching line, within 30 s. 0 (and a test
  // failure naming `what`, with the output) if it never does.
  std::uint16_t wait_for_port(const std::regex& pattern, const std::string& what);
  // The exit code (or 128 + signal number if killed), or nullopt on timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    return child_.wait_exit(timeout);
  }
  // Everything printed so far.
  [[nodiscard]] std::string output() const { return child_.output(); }

 private:
  process::Child child_;
};

// Runs a command to completion (bounded), returning exit code and output.
struct RunResult {
  int exit_code = -1;
  std::string output;
};
RunResult run(std::vector<std::string> argv, std::vector<std::string> env = {},
              std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace herald::test
