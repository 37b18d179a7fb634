// Settings of the network server, with their defaults. register_options()
// publishes them as configuration keys (file, HERALD_* environment, flags).
#pragma once

#include <chrono>
#include <cstdint>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"

namespace herald::gateway {

struct HttpLimits {
  std::uint64_t max_header_bytes = 8 * 1024;       // request line + headers
  std::uint64_t max_body_bytes = 1024 * 1024;      // request body
  std::chrono::milliseconds idle_timeout{30'000};  // per read/write, and keep-alive idle
};

struct Options {
  config::Endpoint listen{"127.0.0.1", 8080};
  unsigned threads = 0;  // 0: one shard per core
  std::uint32_t max_connections = 100'000;
  std::chrono::milliseconds shutdown_timeout{10'000};
  HttpLimits http;

  // threads, with 0 resolved to the number of cores (at least 1).
  [[nodiscard]] unsigned shard_count() const;
};

void register_options(config::Schema& schema, Options& options);

}  // namespace herald::gateway
