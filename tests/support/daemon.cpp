#include "support/daemon.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

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
  auto line = proc->wait_for_line(listening, std::chrono::seconds(30));
  if (!line) {
    ADD_FAILURE() << "heraldd did not start:\n" << proc->output();
    return;
  }
  std::smatch m;
  std::regex_search(*line, m, listening);
  port = static_cast<std::uint16_t>(std::stoi(m[1]));
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("herald-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace herald::test
