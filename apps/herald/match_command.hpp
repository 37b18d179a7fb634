// `herald match`: the keyword engine (src/match) from the command line.
#pragma once

#include <CLI/CLI.hpp>

namespace herald::cli {

// Adds the `match` subcommand and its options to `app`; after parsing,
// run_match() does the work and returns the exit code.
void add_match_command(CLI::App& app);
[[nodiscard]] bool match_selected();
[[nodiscard]] int run_match();

}  // namespace herald::cli
