// Waiting for a state rather than for a time: a test polls the condition it
// needs until it holds. The timeout only bounds a failure (a passing test
// never waits it out), so it is generous: a loaded machine may make a test
// slower, never make it fail. One copy for every test that waits.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace herald::test {

// Whether `pred` comes to hold within `timeout`, asking every `every`.
inline bool eventually(const std::function<bool()>& pred,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30),
                       std::chrono::milliseconds every = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace herald::test
