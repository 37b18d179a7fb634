// A command in hiredis's argv form (redisCommandArgv, redisAsyncCommandArgv):
// a pointer and a length per argument, so arguments may hold any bytes.
// The pointers borrow the strings, which must outlive the call; hiredis
// copies them into its output buffer before returning.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace herald::redis {

struct Argv {
  explicit Argv(std::span<const std::string> command) {
    args.reserve(command.size());
    lens.reserve(command.size());
    for (const std::string& a : command) {
      args.push_back(a.data());
      lens.push_back(a.size());
    }
  }
  // Safety: a command has a handful of arguments, far below INT_MAX.
  [[nodiscard]] int argc() const { return static_cast<int>(args.size()); }

  std::vector<const char*> args;
  std::vector<std::size_t> lens;
};

}  // namespace herald::redis
