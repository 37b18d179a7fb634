// A child process its parent supervises: the test helpers and herald-bench
// start heraldd, redis-server, NSD and the reference servers through it.
//
// Why one class for both: a child that is started, read and stopped in two
// slightly different ways is where the differences become bugs (the bench
// once stopped heraldd without looking at how it exited, so a crash at
// shutdown or a sanitizer report passed unseen). The duties, in one place:
//  - Merged stdout+stderr are read by a thread into a buffer, so a child that
//    writes a lot never blocks on a full pipe, and the caller can wait for a
//    line ("listening addr=...") with a bound.
//  - The child dies with its parent: PR_SET_PDEATHSIG(SIGKILL) is set between
//    fork and exec, so a test killed by a timeout (or a bench killed by ^C)
//    leaves no server behind holding ports and files. prctl(2) documents
//    the signal as following the *thread* that forked, so a Child is started
//    from a thread that outlives it (every caller starts them from the main
//    thread or from the thread that also waits for the exit).
//  - stop() ends it as an operator would (SIGTERM, a bounded wait, SIGKILL
//    only after) and returns how it ended, so the caller can require a clean
//    exit; the destructor of a Child still running kills and reaps it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstddef>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace herald::process {

class Child {
 public:
  struct Options {
    // The whole environment ("NAME=value"); nullopt inherits this process's.
    std::optional<std::vector<std::string>> env;
    // Output kept for output(): 0 keeps all of it; otherwise, once the
    // buffer passes this size, its older half is dropped (a long benchmark
    // must not grow without bound). Lines are matched as they arrive either
    // way.
    std::size_t max_output = 0;
  };

  // Starts argv (argv[0] is looked up in PATH unless it contains a '/').
  // Throws std::runtime_error if the pipe or fork fails; an exec that fails
  // shows as exit code 127 with the reason in the output.
  explicit Child(std::vector<std::string> argv) : Child(std::move(argv), Options{}) {}
  Child(std::vector<std::string> argv, Options options);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  // The first output line (from the start) matching `pattern`, waiting up
  // to `timeout`; nullopt if the output ends or the time runs out first.
  std::optional<std::string> wait_for_line(const std::regex& pattern,
                                           std::chrono::milliseconds timeout);
  void signal(int signo) const;
  // SIGSTOP, returning once the whole child is stopped: true then, false if
  // it had exited (its code is kept for wait_exit). kill(2) returns once the
  // signal is queued, and the kernel stops a process's threads one by one
  // as each next enters it, so a test that sent SIGSTOP to a node and then
  // asked the cluster something could still be answered by that node's
  // other threads. waitpid(WUNTRACED) reports the stop only when the group
  // stop is complete. resume() (SIGCONT) undoes it.
  bool pause();
  void resume() const { signal(SIGCONT); }
  // The exit code (128 + the signal's number if a signal ended it), or
  // nullopt if it still runs after `timeout`. Once it returned a code, it
  // returns the same code at once, and output() is complete.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // SIGTERM, then up to `grace` for the exit, then SIGKILL; the exit code.
  int stop(std::chrono::milliseconds grace);
  // SIGKILL now (a crash, as a test or G3 wants it) and reap; the exit code.
  int kill();
  [[nodiscard]] bool exited() const { return exit_code_.has_value(); }
  // Everything printed so far (within Options::max_output).
  [[nodiscard]] std::string output() const;

 private:
  void read_loop(int fd);
  // Keeps the exit code of a reaped child's wait status; waits for the end
  // of its output.
  void record_exit(int status);

  std::size_t max_output_ = 0;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::string output_;
  std::size_t dropped_ = 0;  // bytes erased from the front of output_
  bool eof_ = false;
  std::thread reader_;
};

// The first sanitizer report marker (ASan, LSan, TSan, UBSan) in a child's
// output, or nullopt: a child that printed one failed, whatever its exit
// code (a report at exit may still leave the code 0 with some options).
[[nodiscard]] std::optional<std::string_view> sanitizer_report(std::string_view output);

}  // namespace herald::process
