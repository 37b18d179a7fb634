// What the state tests share: a fresh directory per test and process, and
// a store opened in it (a failure to open is the test's failure).
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "state/membership_store.hpp"

namespace herald::state::test {

// A fresh directory under TMPDIR (or /tmp), unique to `name` and the process.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  auto dir = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") /
             ("herald-state-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

inline std::unique_ptr<MembershipStore> open_store(MembershipStore::Options o) {
  auto r = MembershipStore::open(std::move(o));
  if (!r) ADD_FAILURE() << r.error();
  return r ? std::move(*r) : nullptr;
}

}  // namespace herald::state::test
