#include "target.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "core/metrics/process.hpp"

namespace herald::bench {

namespace {
// Output kept per server: enough for the tail shown on a failure and for a
// sanitizer report at exit, bounded for a long run with verbose logging.
constexpr std::size_t kKeptOutput = 1 << 20;
}  // namespace

Target::Target(std::string name, std::vector<std::string> argv)
    : Target(std::move(name), std::move(argv), R"(listening addr=127\.0\.0\.1:(\d+))", 0) {}

Target::Target(std::string name, std::vector<std::string> argv, const std::string& ready,
               std::uint16_t port)
    : name_(std::move(name)),
      child_(std::move(argv), {.env = std::nullopt, .max_output = kKeptOutput}) {
  const std::regex listening(ready);
  const auto line = child_.wait_for_line(listening, std::chrono::seconds(30));
  std::smatch m;
  if (line && std::regex_search(*line, m, listening)) {
    // Safety: the default pattern's group is the decimal port the kernel
    // chose (1..65535); a caller's own pattern comes with its port.
    port_ = port != 0 ? port : static_cast<std::uint16_t>(std::stoi(m[1]));
  }
  if (port_ == 0) {
    child_.kill();
    throw std::runtime_error(name_ + " did not start:\n" + child_.output());
  }
}

Target::~Target() {
  if (running()) child_.stop(std::chrono::seconds(15));
}

double Target::cpu_seconds() const {
  auto s = metrics::read_process_stats(pid());
  return s ? s->cpu_seconds : 0.0;
}

std::string Target::tail() const {
  std::string out = child_.output();
  return out.size() > 2000 ? out.substr(out.size() - 2000) : out;
}

bool Target::finish() {
  if (killed_) return true;
  const int code = child_.stop(std::chrono::seconds(15));
  const std::string out = child_.output();
  std::string problem;
  if (auto report = process::sanitizer_report(out)) {
    problem = fmt::format("printed a sanitizer report ('{}')", *report);
  } else if (code != 0) {
    problem = fmt::format("exited with {} on SIGTERM", code);
  } else {
    return true;
  }
  fmt::print(stderr, "herald-bench: {} {}; its output (tail):\n{}\n", name_, problem, tail());
  return false;
}

void Target::kill() {
  child_.kill();
  killed_ = true;
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
