#include "support/daemon.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"

namespace herald::test {
namespace {
const std::regex kListening(R"(listening addr=127\.0\.0\.1:(\d+))");
}

Daemon::Daemon(std::vector<std::string> flags, std::vector<std::string> env)
    : Daemon(std::move(flags), std::move(env), kListening) {}

Daemon::Daemon(std::vector<std::string> flags, std::vector<std::string> env,
               const std::regex& listening) {
  std::vector<std::string> argv{HERALDD_PATH, "--server.listen", "127.0.0.1:0", "--server.threads",
                                "2"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  proc = std::make_unique<ChildProcess>(argv, env);
  port = proc->wait_for_port(listening, "heraldd");
}

Daemon::~Daemon() {
  if (!proc || proc->wait_exit(std::chrono::milliseconds(0))) return;
  proc->signal(SIGTERM);
  const auto code = proc->wait_exit(std::chrono::seconds(30));
  if (!code) {
    ADD_FAILURE() << "heraldd did not exit within 30 s of SIGTERM:\n" << proc->output();
  } else if (*code != 0) {
    ADD_FAILURE() << "heraldd exited with " << *code << " on SIGTERM:\n" << proc->output();
  }
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  // One directory for the test process's files, removed when it exits.
  static const TempDir dir("herald-test");
  auto path = dir.path / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace herald::test
