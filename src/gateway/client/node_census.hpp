// Who is on this node: its connected clients and their distinct users, and
// the rooms they are subscribed to with how many subscriptions each. What
// Centrifugo's server API reports per node (`info`: num_clients,
// num_users, num_channels, num_subs) and per room (`channels`), and what
// the cluster heartbeat carries to the other nodes (broker/node_registry).
//
// The client core tells it at four transitions: a client connected, it
// finished, it joined a room's local subscriber set, it left it (client.cpp,
// subscriptions.cpp), from any shard. One mutex rather than per-shard
// counters: users and rooms must be distinct over the shards (a user with
// connections on two shards is one user, a room with subscribers on both
// is one room), which per-shard counts could only give by merging every
// set at each read. The transitions are per connection and per
// subscription, never per message, so the lock stays off the delivery
// path, and a read is O(1) (counts) or one pass over the rooms (rooms).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace herald::gateway::client {

class NodeCensus {
 public:
  struct Counts {
    std::uint64_t clients = 0;        // connected (after connect), every transport
    std::uint64_t users = 0;          // distinct users of those clients
    std::uint64_t rooms = 0;          // rooms with at least one subscription here
    std::uint64_t subscriptions = 0;  // over every room
  };

  void connected(const std::string& user);
  // Undoes one connected(user).
  void disconnected(const std::string& user);
  void subscribed(const std::string& room);
  // Undoes one subscribed(room).
  void unsubscribed(const std::string& room);

  [[nodiscard]] Counts counts() const;
  // The rooms with subscriptions here for which `match` holds, each with
  // how many, in no particular order.
  [[nodiscard]] std::vector<std::pair<std::string, std::uint64_t>> rooms(
      const std::function<bool(std::string_view)>& match) const;

 private:
  // Counts `key` up, or down (erased at zero; a key not there is left
  // alone).
  static void count(std::unordered_map<std::string, std::uint64_t>& map, const std::string& key,
                    bool up);

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::uint64_t> users_;  // user -> connected clients
  std::unordered_map<std::string, std::uint64_t> rooms_;  // room -> subscriptions
  std::uint64_t clients_ = 0;
  std::uint64_t subscriptions_ = 0;
};

}  // namespace herald::gateway::client
