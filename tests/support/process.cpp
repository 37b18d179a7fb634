#include "support/process.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace herald::test {

ChildProcess::ChildProcess(std::vector<std::string> argv, std::vector<std::string> env) {
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "HERALD_", 7) != 0) envs.emplace_back(*e);
  }
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char*> cargv;
  std::vector<char*> cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // Child: only async-signal-safe calls until exec.
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(fds[1]);
  reader_ = std::thread([this, fd = fds[0]] { read_loop(fd); });
}

ChildProcess::~ChildProcess() {
  if (!exit_code_) {
    ::kill(pid_, SIGKILL);
    (void)wait_exit(std::chrono::seconds(10));
  }
  if (reader_.joinable()) reader_.join();
  // A sanitizer build of heraldd that found a race, a memory error or a leak
  // fails the test that ran it, whatever the test itself checked, and shows
  // the report (halt_on_error ends the child at its first one, so the test
  // may otherwise only see a connection refused).
  static constexpr std::array<std::string_view, 4> kReports{
      "WARNING: ThreadSanitizer:", "ERROR: AddressSanitizer:", "ERROR: LeakSanitizer:",
      ": runtime error: "};
  for (std::string_view report : kReports) {
    if (output_.find(report) != std::string::npos) {
      ADD_FAILURE() << "child process " << pid_ << " reported '" << report << "':\n" << output_;
      break;
    }
  }
}

void ChildProcess::read_loop(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard lock(mutex_);
    if (n <= 0) {
      eof_ = true;
      cv_.notify_all();
      break;
    }
    output_.append(buf, static_cast<std::size_t>(n));
    cv_.notify_all();
  }
  close(fd);
}

std::optional<std::string> ChildProcess::wait_for_line(const std::regex& pattern,
                                                       std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  std::size_t scanned = 0;  // complete lines before this offset did not match
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::size_t nl;
    while ((nl = output_.find('\n', scanned)) != std::string::npos) {
      std::string line = output_.substr(scanned, nl - scanned);
      scanned = nl + 1;
      if (std::regex_search(line, pattern)) return line;
    }
    if (eof_) return std::nullopt;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return std::nullopt;
  }
}

std::uint16_t ChildProcess::wait_for_port(const std::regex& pattern, const std::string& what) {
  auto line = wait_for_line(pattern, std::chrono::seconds(30));
  if (!line) {
    ADD_FAILURE() << what << " did not start:\n" << output();
    return 0;
  }
  std::smatch m;
  std::regex_search(*line, m, pattern);
  // Safety: the pattern's group matched the decimal port the kernel chose
  // (1..65535).
  return static_cast<std::uint16_t>(std::stoi(m[1]));
}

void ChildProcess::signal(int signo) {
  ::kill(pid_, signo);
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      // The child is gone, but its last output may still sit in the pipe:
      // wait (bounded: a grandchild may hold the pipe open) for the reader
      // to reach end of file, so output() after wait_exit is complete.
      std::unique_lock lock(mutex_);
      cv_.wait_for(lock, std::chrono::seconds(5), [this] { return eof_; });
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string ChildProcess::output() const {
  std::lock_guard lock(mutex_);
  return output_;
}

RunResult run(std::vector<std::string> argv, std::vector<std::string> env,
              std::chrono::milliseconds timeout) {
  ChildProcess p(std::move(argv), std::move(env));
  RunResult r;
  auto code = p.wait_exit(timeout);  // complete output once it has exited
  r.exit_code = code.value_or(-1);
  r.output = p.output();
  return r;
}

}  // namespace herald::test
