// `herald kw`: keyword dictionaries from the command line, against a
// running heraldd's API (its store: embedded by default) or, with --redis,
// directly against the Redis that heraldd processes share.
#pragma once

#include <CLI/CLI.hpp>

namespace herald::cli {

void add_kw_command(CLI::App& app);
[[nodiscard]] bool kw_selected();
[[nodiscard]] int run_kw();

}  // namespace herald::cli
