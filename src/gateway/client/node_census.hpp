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
      const std::function<bool(const std::string&)>& match) const;

 private:
  // Keys, how many times each is counted, and the sum of those counts.
  struct Tally {
    std::unordered_map<std::string, std::uint64_t> by_key;
    std::uint64_t total = 0;
    void up(const std::string& key);
    // Undoes one up(key); a key not counted is left alone.
    void down(const std::string& key);
  };

  mutable std::mutex mu_;
  Tally users_;  // user -> connected clients; total: the clients
  Tally rooms_;  // room -> subscriptions; total: the subscriptions
};

}  // namespace herald::gateway::client
