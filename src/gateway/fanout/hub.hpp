// One shard's hub: which of this shard's connections follow which room.
// uWebSockets calls it the TopicTree; here it is a hash map from room name
// to the subscribing sessions, because rooms are flat names (no wildcards).
//
// A publication reaches each shard with subscribers once (the broker posts
// one MessagePtr per shard, not per connection); deliver() hands that same
// frame to every local subscriber, whose queue keeps a reference and whose
// socket is written by the shard's cork at the end of the turn
// (ws/write_cork.hpp). Nothing is copied or allocated per recipient.
//
// Membership follows the broker's ordering contract (broker/broker.hpp): a
// session joins when its subscribe callback runs and leaves when it
// unsubscribes or closes, so it sees each publication once.
//
// Subscribers are WebSocket sessions and SSE streams alike, through the
// Subscriber interface (gateway/fanout/subscriber.hpp): the hub never asks which.
//
// Single-threaded: shard-local, no lock. deliver() never re-enters the hub:
// a slow consumer is closed without leaving its rooms synchronously
// (subscriber.hpp), so iterating a room while delivering is safe.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "gateway/fanout/message.hpp"
#include "gateway/fanout/subscriber.hpp"

namespace herald::gateway::fanout {

class Hub {
 public:
  void join(const std::string& room, Subscriber* subscriber);
  // No-op if the subscriber is not in the room.
  void leave(const std::string& room, Subscriber* subscriber);
  // Gives `frame` to each local subscriber of `room` (Subscriber::deliver).
  void deliver(const std::string& room, const MessagePtr& frame);
  // A copy of the room's subscribers, for callers that act on each one in
  // a way that edits the hub (a stream reset makes them leave).
  [[nodiscard]] std::vector<Subscriber*> subscribers(const std::string& room) const;
  [[nodiscard]] std::size_t room_count() const { return rooms_.size(); }

 private:
  std::unordered_map<std::string, std::vector<Subscriber*>> rooms_;
};

}  // namespace herald::gateway::fanout
