// heraldd as a child process for tests: started on a kernel-chosen loopback
// port with the given flags; the port is read from its "listening" log line.
#pragma once

#include <cstdint>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace herald::test {

struct Daemon {
  std::unique_ptr<ChildProcess> proc;
  std::uint16_t port = 0;

  // `flags` are appended after --server.listen 127.0.0.1:0 --server.threads 2.
  explicit Daemon(std::vector<std::string> flags = {}, std::vector<std::string> env = {});
  Daemon(std::vector<std::string> flags, std::vector<std::string> env, const std::regex& listening);
  // A heraldd the test left running is stopped as an operator would, with
  // SIGTERM, and must exit 0 within 30 s: a crash, a hang or an error at
  // shutdown fails the test (and a sanitizer build's leak check runs, which
  // SIGKILL would skip; ChildProcess fails the test on any report). One the
  // test stopped or killed itself is left as it is.
  ~Daemon();
  Daemon(Daemon&&) = default;
  Daemon& operator=(Daemon&&) = default;
};

// Writes `text` to a fresh file in the temporary directory; returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);

}  // namespace herald::test
