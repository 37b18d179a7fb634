#include "core/process/child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>

namespace herald::process {

Child::Child(std::vector<std::string> argv, Options options) : max_output_(options.max_output) {
  if (argv.empty()) throw std::invalid_argument("Child: empty argv");
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  if (options.env) {
    for (auto& e : *options.env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
  }

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("fork failed");
  }
  if (pid_ == 0) {
    // Child: only async-signal-safe calls until exec. The death signal
    // survives exec; if the parent died before prctl took effect, nobody
    // would ever send it, so check and leave at once.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    // Nothing else of the parent's: an inherited socket would stay open
    // in the child after the parent closed it (its peer never seeing the
    // close), and a child may outlive many of them.
    close_range(3, ~0U, 0);
    if (options.env) {
      execvpe(cargv[0], cargv.data(), cenv.data());
    } else {
      execvp(cargv[0], cargv.data());
    }
    static constexpr char kFailed[] = "exec failed\n";
    (void)!write(2, kFailed, sizeof kFailed - 1);
    _exit(127);
  }
  close(fds[1]);
  reader_ = std::thread([this, fd = fds[0]] { read_loop(fd); });
}

Child::~Child() {
  if (!exit_code_) kill();
  if (reader_.joinable()) reader_.join();
}

void Child::read_loop(int fd) {
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
    // Safety: n > 0 here, and at most sizeof buf.
    output_.append(buf, static_cast<std::size_t>(n));
    if (max_output_ != 0 && output_.size() > max_output_) {
      const std::size_t drop = output_.size() - max_output_ / 2;
      output_.erase(0, drop);
      dropped_ += drop;
    }
    cv_.notify_all();
  }
  close(fd);
}

std::optional<std::string> Child::wait_for_line(const std::regex& pattern,
                                                std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  // Complete lines before this absolute offset (counting dropped output)
  // did not match.
  std::size_t scanned = dropped_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::size_t from = scanned > dropped_ ? scanned - dropped_ : 0;
    std::size_t nl;
    while ((nl = output_.find('\n', from)) != std::string::npos) {
      std::string line = output_.substr(from, nl - from);
      from = nl + 1;
      if (std::regex_search(line, pattern)) return line;
    }
    scanned = dropped_ + from;
    if (eof_) return std::nullopt;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return std::nullopt;
  }
}

void Child::signal(int signo) const {
  if (!exit_code_) ::kill(pid_, signo);
}

bool Child::pause() {
  if (exit_code_) return false;
  ::kill(pid_, SIGSTOP);
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WUNTRACED);
    if (r == pid_ && WIFSTOPPED(status)) return true;
    if (r == pid_) {
      record_exit(status);
      return false;
    }
    if (r < 0 && errno != EINTR) return false;
  }
}

void Child::record_exit(int status) {
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // The child is gone, but its last output may still sit in the pipe: wait
  // (bounded: a grandchild may hold the pipe open) for the reader to reach
  // end of file, so output() after wait_exit is complete.
  std::unique_lock lock(mutex_);
  cv_.wait_for(lock, std::chrono::seconds(5), [this] { return eof_; });
}

std::optional<int> Child::wait_exit(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      record_exit(status);
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int Child::stop(std::chrono::milliseconds grace) {
  signal(SIGTERM);
  if (auto code = wait_exit(grace)) return *code;
  return kill();
}

int Child::kill() {
  signal(SIGKILL);
  // SIGKILL cannot be caught: the wait ends as soon as the kernel reaps.
  return wait_exit(std::chrono::hours(1)).value_or(128 + SIGKILL);
}

std::string Child::output() const {
  std::lock_guard lock(mutex_);
  return output_;
}

std::optional<std::string_view> sanitizer_report(std::string_view output) {
  static constexpr std::array<std::string_view, 4> kReports{
      "WARNING: ThreadSanitizer:", "ERROR: AddressSanitizer:", "ERROR: LeakSanitizer:",
      ": runtime error: "};
  for (std::string_view report : kReports) {
    if (output.find(report) != std::string_view::npos) return report;
  }
  return std::nullopt;
}

}  // namespace herald::process
