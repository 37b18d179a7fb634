// A node's figures beyond its address, which its heartbeat carries to the
// other nodes (node_registry.hpp) and the server API's info reports.
#pragma once

#include <cstdint>
#include <string>

namespace herald::gateway::broker {

// What a node reports of itself beyond its address: its census
// (client/node_census.hpp), when it started, what it runs. All zero and
// empty for an entry written by a Herald that did not report them.
struct NodeStats {
  std::uint64_t clients = 0;
  std::uint64_t users = 0;
  std::uint64_t rooms = 0;
  std::uint64_t subscriptions = 0;
  std::int64_t started_unix_s = 0;
  std::string version;  // no spaces
  bool operator==(const NodeStats&) const = default;
};

}  // namespace herald::gateway::broker
