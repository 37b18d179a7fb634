#include "support/process.hpp"

#include <gtest/gtest.h>

#include <cstring>

extern char** environ;

namespace herald::test {
namespace {

// The test's environment without HERALD_* (a developer's shell settings must
// not change what a test starts), then `extra`.
process::Child::Options child_options(std::vector<std::string> extra) {
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "HERALD_", 7) != 0) envs.emplace_back(*e);
  }
  envs.insert(envs.end(), extra.begin(), extra.end());
  return {.env = std::move(envs), .max_output = 0};
}

}  // namespace

ChildProcess::ChildProcess(std::vector<std::string> argv, std::vector<std::string> env)
    : child_(std::move(argv), child_options(std::move(env))) {}

ChildProcess::~ChildProcess() {
  if (!child_.exited()) child_.kill();
  const std::string out = child_.output();
  if (auto report = process::sanitizer_report(out)) {
    ADD_FAILURE() << "child process " << child_.pid() << " reported '" << *report << "':\n" << out;
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
