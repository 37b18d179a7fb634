// The command line of heraldd: flags, the config file, the environment.
//
//   heraldd [--config FILE] [--KEY VALUE ...] [--print-config] [--check-config]
//
// Precedence, lowest first: defaults, FILE (or $HERALD_CONFIG), HERALD_*
// variables, --KEY flags. Any bad value anywhere is reported (all of them,
// each with where it came from) and the exit code is 2.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "settings.hpp"

namespace herald::heraldd {

struct CliResult {
  // Set when the daemon should run; otherwise exit with exit_code after
  // printing out (stdout) and err (stderr).
  std::optional<Settings> settings;
  int exit_code = 0;
  std::string out;
  std::string err;
  std::vector<std::string> unknown_env;  // HERALD_* names that match no key
  std::string config_file;               // the file read, if any
};

[[nodiscard]] CliResult parse_cli(int argc, const char* const* argv, char** environ);

}  // namespace herald::heraldd
