// Runs heraldd with validated settings until SIGTERM or SIGINT, then shuts
// down gracefully. Returns the process exit code.
#pragma once

#include "settings.hpp"

namespace herald::heraldd {

[[nodiscard]] int run(const Settings& settings);

}  // namespace herald::heraldd
