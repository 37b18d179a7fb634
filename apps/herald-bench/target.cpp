#include "target.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
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

namespace {

// Where the RESP value starting at `at` ends, or npos if `text` does not
// hold all of it yet.
std::size_t resp_end(const std::string& text, std::size_t at) {
  if (at >= text.size()) return std::string::npos;
  const std::size_t eol = text.find("\r\n", at);
  if (eol == std::string::npos) return std::string::npos;
  const char type = text[at];
  if (type == '+' || type == '-' || type == ':') return eol + 2;
  long long n = 0;
  try {
    n = std::stoll(text.substr(at + 1, eol - at - 1));
  } catch (const std::exception&) {
    return eol + 2;  // not RESP: take the line as it is
  }
  if (type == '$') {
    if (n < 0) return eol + 2;
    const std::size_t end = eol + 2 + static_cast<std::size_t>(n) + 2;
    return end <= text.size() ? end : std::string::npos;
  }
  if (type == '*' || type == '%' || type == '~') {
    std::size_t pos = eol + 2;
    const long long items = type == '%' ? 2 * n : n;
    for (long long i = 0; i < items; ++i) {
      pos = resp_end(text, pos);
      if (pos == std::string::npos) return pos;
    }
    return pos;
  }
  return eol + 2;
}

}  // namespace

std::string redis_ask(std::uint16_t port, const std::vector<std::string>& argv,
                      std::chrono::milliseconds timeout) {
  std::string req = "*" + std::to_string(argv.size()) + "\r\n";
  for (const auto& a : argv) req += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  std::string reply;
  bool done = false;
  char buf[8192];
  std::function<void()> read = [&] {
    s.async_read_some(boost::asio::buffer(buf), [&](boost::system::error_code ec, std::size_t n) {
      reply.append(buf, n);
      if (resp_end(reply, 0) != std::string::npos) {
        done = true;
        return;
      }
      if (!ec) read();
    });
  };
  s.async_connect({boost::asio::ip::make_address("127.0.0.1"), port},
                  [&](boost::system::error_code ec) {
                    if (ec) return;
                    boost::asio::async_write(s, boost::asio::buffer(req),
                                             [&](boost::system::error_code e, std::size_t) {
                                               if (!e) read();
                                             });
                  });
  io.run_for(timeout);
  return done ? reply : std::string();
}

long long info_field(const std::string& info, const std::string& key) {
  const std::size_t at = info.find(key);
  if (at == std::string::npos) return -1;
  try {
    return std::stoll(info.substr(at + key.size()));
  } catch (const std::exception&) {
    return -1;
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
