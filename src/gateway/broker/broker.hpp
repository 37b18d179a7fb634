// The broker owns every room's stream: it assigns offsets, keeps history,
// tracks which shards have subscribers and presence, and delivers each
// publication to those shards. The gateway talks to it only through this
// interface, so the embedded broker (MemoryBroker, one process) and a Redis
// broker (many nodes) are interchangeable.
//
// Threading contract: every call is made on a shard thread and names that
// shard (`from`); every callback runs later on that same shard, never inline.
// Deliveries run on the receiving shard through the Delivery callback.
//
// Ordering contract, which recovery rests on: for one room, a shard receives
// deliveries in offset order, and a subscribe callback arrives after every
// delivery of a publication its result includes (by offset <= result.offset)
// and before every delivery of a later one. A session that joins the shard's
// local subscriber set when its callback runs therefore sees each
// publication exactly once: from the result, or live. A publication outside
// the stream (skip_history) reaches the shards that have subscribers when
// the broker handles it, and no subscribe result includes it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/requests.hpp"

namespace herald::gateway::broker {

class Broker {
 public:
  // Runs on `shard`: give `frame` to the local subscribers of `room`.
  using Delivery =
      std::function<void(unsigned shard, const std::string& room, const fanout::MessagePtr&)>;

  virtual ~Broker() = default;

  virtual void publish(unsigned from, protocol::PublishRequest request,
                       std::function<void(protocol::PublishResult)> done) = 0;
  // Registers one subscription of shard `from` (for delivery and presence)
  // and reads what the client missed, in one atomic step.
  virtual void subscribe(unsigned from, protocol::SubscribeRequest request,
                         std::function<void(protocol::SubscribeResult)> done) = 0;
  // Undoes one successful subscribe. `leave_info`: the info of the leave
  // push to send for an announced subscription, nullopt for one that is
  // not (the client has its info as it is now, after any update_presence).
  // No callback: nothing can fail that the client could act on.
  virtual void unsubscribe(unsigned from, std::string room, std::string client,
                           std::optional<std::string> leave_info) = 0;
  // Undoes one successful subscribe made as a follow (SubscribeRequest::
  // follow). No callback, as unsubscribe.
  virtual void unfollow(unsigned from, std::string room) = 0;
  virtual void history(unsigned from, protocol::HistoryRequest request,
                       std::function<void(protocol::HistoryResult)> done) = 0;
  virtual void presence(unsigned from, std::string room,
                        std::function<void(protocol::PresenceResult)> done) = 0;
  // The client's presence entry in `room`, if it has one, carries
  // `info_json` from now on (the server API's refresh with info): presence
  // reads and its leave push show it. No callback, as unsubscribe.
  virtual void update_presence(unsigned from, std::string room, std::string client,
                               std::string user, std::string info_json) = 0;
  // Drops the room's kept publications (protocol::HistoryRemoveResult says
  // what stays). A room that does not exist is left so, without error.
  virtual void history_remove(unsigned from, std::string room,
                              std::function<void(protocol::HistoryRemoveResult)> done) = 0;

  // Starts timers (and connections); called before the shards run.
  virtual void start() = 0;
  // Stops timers; called on shutdown before the shards stop.
  virtual void stop() = 0;
};

}  // namespace herald::gateway::broker
