// What the hub (gateway/fanout/hub.hpp) knows of a connection that follows rooms:
// it takes the frames delivered to its rooms, and it can be told to go.
// A WebSocket session and an SSE stream are both subscribers; the hub, the
// broker's deliveries and a cluster stream reset treat them alike, so every
// kind of client gets the same frames, in the same order, under the same
// ordering contract (broker/broker.hpp).
//
// Invariants a subscriber keeps: deliver(), disconnect() and stream_lost()
// run on the subscriber's shard; none edits the hub synchronously (the hub may be
// iterating the room: a slow consumer is closed, and leaves its rooms
// later), and neither destroys the subscriber (it stays alive until it has
// left every room it joined).
#pragma once

#include <string>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/codes.hpp"

namespace herald::gateway::fanout {

class Subscriber {
 public:
  // A frame the broker delivered to `room` (a publication, a join/leave
  // push): queue it for the client.
  virtual void deliver(const std::string& room, const MessagePtr& frame) = 0;
  // The server ends the connection (a shutdown); the client should
  // reconnect and recover as `code` says.
  virtual void disconnect(protocol::DisconnectCode code) = 0;
  // `room`'s stream lost publications (a cluster stream reset): what was
  // delivered no longer continues without a hole. The subscriber stops
  // taking the room's deliveries now and has its client recover: by
  // subscribing again, or by reconnecting (3005).
  virtual void stream_lost(const std::string& room) = 0;

 protected:
  Subscriber() = default;
  ~Subscriber() = default;
  Subscriber(const Subscriber&) = default;
  Subscriber& operator=(const Subscriber&) = default;
};

}  // namespace herald::gateway::fanout
