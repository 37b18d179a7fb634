// The cluster's membership: each node writes a heartbeat entry (its
// address, current connection count and census) into one Redis hash with
// an expiry taken from Redis's clock, and reads back the live entries in
// the same script (one round trip per heartbeat). A node that stops heartbeating (it
// died) disappears from everyone's list within node_ttl + heartbeat
// interval; a node that stops cleanly removes its entry at once. heraldd
// feeds the list to the DNS discovery zone (SRV per live node); the
// server API's info reads it with each node's census, as Centrifugo's
// nodes learn each other's from their periodic node messages (so a
// figure is up to one heartbeat interval old).
//
// Threading: lives on the cluster broker's thread and sends through it, to
// the Redis server that holds the hash (in a Redis Cluster, wherever the
// hash's slot has moved: the broker follows redirections).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gateway/broker/node_stats.hpp"
#include "redis/client.hpp"

namespace herald::gateway::broker {

struct ClusterNode {
  std::string id;  // a DNS label
  std::string host;
  std::uint16_t port = 0;
  std::uint64_t connections = 0;  // TCP connections open (the DNS weights)
  NodeStats stats;
  bool operator==(const ClusterNode&) const = default;
};

class NodeRegistry {
 public:
  using Listener = std::function<void(const std::vector<ClusterNode>&)>;
  // How the registry reaches Redis: sends a pipeline (as redis::Client::
  // execute does), and says whether the connection is up.
  struct Link {
    std::function<void(std::vector<redis::Command>, redis::Client::Done)> execute;
    std::function<bool()> ready;
  };

  NodeRegistry(boost::asio::io_context& io, Link link, std::string key,
               std::chrono::milliseconds interval, std::chrono::milliseconds ttl);

  // What a beat reports of this node: its connections and stats now.
  using Report = std::function<std::pair<std::uint64_t, NodeStats>()>;
  // Starts heartbeating as `self` (its figures come from `report` at each
  // beat); `listener` gets the live nodes, sorted by id, whenever what
  // discovery serves of them (id, address, connections) changes. On the
  // broker thread.
  void start(ClusterNode self, Report report, Listener listener);
  // Removes this node's entry (best effort) and stops; `done` runs once
  // Redis answered (or at once when it cannot be asked).
  void stop(std::function<void()> done);
  // A beat now (after a reconnect, so the node reappears without waiting).
  void beat();
  // The live nodes as of the last beat's answer, sorted by id, with their
  // stats.
  [[nodiscard]] const std::vector<ClusterNode>& live() const { return last_; }
  // This node as start() named it (an empty id before).
  [[nodiscard]] const ClusterNode& self() const { return self_; }

 private:
  void schedule();
  Link link_;
  std::string key_;
  std::chrono::milliseconds interval_, ttl_;
  boost::asio::steady_timer timer_;
  ClusterNode self_;
  Report report_;
  Listener listener_;
  std::vector<ClusterNode> last_;
  bool running_ = false;
};

}  // namespace herald::gateway::broker
