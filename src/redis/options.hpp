// How a Client reaches Redis and how patient it is. The daemon binds these
// to configuration keys (docs/configuration.md, sections [keywords.redis] and
// [cluster.redis]).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace herald::redis {

struct Options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
  // A connect that has not completed by then is abandoned and retried.
  std::chrono::milliseconds connect_timeout{1000};
  // A pipeline whose replies have not all arrived by then fails, and the
  // connection is dropped and re-established (a server that stopped
  // answering is indistinguishable from a dead one).
  std::chrono::milliseconds command_timeout{2000};
  // Reconnect backoff: the first retry waits reconnect_min, each failure
  // doubles the wait, up to reconnect_max.
  std::chrono::milliseconds reconnect_min{50};
  std::chrono::milliseconds reconnect_max{2000};
};

}  // namespace herald::redis
