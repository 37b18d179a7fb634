// heraldd's DNS server as a child process, and kdig (knot-dnsutils) asking
// it: shared by the process tests of the DNS server.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/process.hpp"

namespace herald::dns::test {

inline const std::string kZones = HERALD_DNS_TEST_DATA "/server";
// The port after the host, whichever host (127.0.0.1, or :: for dual stack).
inline const std::regex kDnsListening(R"(dns listening addr=\S*:(\d+))");

struct DnsDaemon {
  herald::test::Daemon d;
  std::uint16_t http_port = 0;
  explicit DnsDaemon(std::vector<std::string> extra = {}, std::string zones_dir = kZones)
      : d(flags(std::move(extra), zones_dir), {}, kDnsListening) {
    std::smatch m;
    std::string out = d.proc->output();
    static const std::regex http(R"(\blistening addr=127\.0\.0\.1:(\d+) shards)");
    if (std::regex_search(out, m, http)) http_port = static_cast<std::uint16_t>(std::stoi(m[1]));
  }
  static std::vector<std::string> flags(std::vector<std::string> extra, const std::string& dir) {
    std::vector<std::string> f{"--dns.enabled", "true",       "--dns.listen",    "127.0.0.1:0",
                               "--dns.threads", "2",          "--dns.zones_dir", dir,
                               "--dns.nsid",    "herald-test"};
    f.insert(f.end(), extra.begin(), extra.end());
    return f;
  }
  std::uint16_t port() const { return d.port; }
};

struct KdigResult {
  std::string status;  // NOERROR, NXDOMAIN, ...
  std::string flags;   // "qr aa"
  int answer = -1, authority = -1, additional = -1;
  bool retried_tcp = false;
  std::string text;
};

inline KdigResult kdig(std::uint16_t port, std::vector<std::string> args) {
  using namespace std::chrono_literals;
  std::vector<std::string> argv{KDIG_PATH, "@127.0.0.1", "-p",      std::to_string(port),
                                "+norec",  "+time=5",    "+retry=3"};
  argv.insert(argv.end(), args.begin(), args.end());
  // run() waits for the output's end, not only for the exit.
  herald::test::RunResult run = herald::test::run(argv, {}, 30s);
  KdigResult r;
  r.text = run.output;
  int code = run.exit_code;
  EXPECT_EQ(code, 0) << r.text;
  // The last header wins (after a TC retry over TCP, kdig prints both).
  static const std::regex status(R"(status: (\w+);)");
  static const std::regex flags(
      R"(;; Flags: ([a-z ]*); QUERY: \d+; ANSWER: (\d+); AUTHORITY: (\d+); ADDITIONAL: (\d+))");
  for (std::sregex_iterator it(r.text.begin(), r.text.end(), status), end; it != end; ++it)
    r.status = (*it)[1];
  for (std::sregex_iterator it(r.text.begin(), r.text.end(), flags), end; it != end; ++it) {
    r.flags = (*it)[1];
    r.answer = std::stoi((*it)[2]);
    r.authority = std::stoi((*it)[3]);
    r.additional = std::stoi((*it)[4]);
  }
  r.retried_tcp = r.text.find("retrying over TCP") != std::string::npos;
  return r;
}

}  // namespace herald::dns::test
