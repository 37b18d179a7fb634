#include "target.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "core/metrics/process.hpp"

namespace herald::bench {

Target::Target(std::string name, std::vector<std::string> argv)
    : Target(std::move(name), std::move(argv), R"(listening addr=127\.0\.0\.1:(\d+))", 0) {}

Target::Target(std::string name, std::vector<std::string> argv, const std::string& ready,
               std::uint16_t port)
    : name_(std::move(name)) {
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  close(fds[1]);
  reader_ = std::thread([this, fd = fds[0]] {
    char buf[4096];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard lock(mutex_);
      output_.append(buf, static_cast<std::size_t>(n));
      if (output_.size() > (1 << 20)) output_.erase(0, output_.size() - (1 << 19));
      cv_.notify_all();
    }
    close(fd);
    std::lock_guard lock(mutex_);
    stopped_ = true;
    cv_.notify_all();
  });
  const std::regex listening(ready);
  std::unique_lock lock(mutex_);
  bool ok = cv_.wait_for(lock, std::chrono::seconds(30), [&] {
    std::smatch m;
    if (std::regex_search(output_, m, listening)) {
      port_ = port != 0 ? port : static_cast<std::uint16_t>(std::stoi(m[1]));
      return true;
    }
    return stopped_;
  });
  if (!ok || port_ == 0) {
    std::string out = output_;
    lock.unlock();
    stop();
    throw std::runtime_error(name_ + " did not start:\n" + out);
  }
}

Target::~Target() {
  stop();
}

double Target::cpu_seconds() const {
  auto s = metrics::read_process_stats(pid_);
  return s ? s->cpu_seconds : 0.0;
}

std::string Target::tail() const {
  std::lock_guard lock(mutex_);
  return output_.size() > 2000 ? output_.substr(output_.size() - 2000) : output_;
}

void Target::stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 1500; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }
  if (reader_.joinable()) reader_.join();
}

void Target::kill() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (reader_.joinable()) reader_.join();
}

std::uint16_t free_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(
      io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

double scrape_metric(std::uint16_t port, const std::string& series) {
  try {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket s(io);
    s.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    const std::string req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    boost::asio::write(s, boost::asio::buffer(req));
    std::string body;
    boost::system::error_code ec;
    char buf[8192];
    for (;;) {
      std::size_t n = s.read_some(boost::asio::buffer(buf), ec);
      body.append(buf, n);
      if (ec) break;
    }
    const std::size_t at = body.find("\n" + series + " ");
    if (at == std::string::npos) return std::nan("");
    return std::stod(body.substr(at + series.size() + 2));
  } catch (const std::exception&) {
    return std::nan("");
  }
}

double self_cpu_seconds() {
  auto s = metrics::read_process_stats(0);
  return s ? s->cpu_seconds : 0.0;
}

MachineCpu machine_cpu() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;  // the aggregate "cpu" line comes first
  std::uint64_t v[10] = {};
  for (auto& x : v) in >> x;
  // user nice system idle iowait irq softirq steal guest guest_nice
  MachineCpu m;
  m.total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  m.busy = m.total - v[3] - v[4];
  return m;
}

double machine_busy_percent(const MachineCpu& a, const MachineCpu& b) {
  const auto total = b.total - a.total;
  return total == 0 ? 0.0
                    : 100.0 * static_cast<double>(b.busy - a.busy) / static_cast<double>(total);
}

}  // namespace herald::bench
