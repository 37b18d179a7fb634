// What the hub (gateway/fanout/hub.hpp) knows of a connection that follows rooms:
// it takes the frames delivered to its rooms, and it can be told to go.
// A WebSocket session and an SSE stream are both subscribers; the hub, the
// broker's deliveries and a cluster stream reset treat them alike, so every
// kind of client gets the same frames, in the same order, under the same
// ordering contract (broker/broker.hpp).
//
// Invariants a subscriber keeps: deliver() and disconnect() run on the
// subscriber's shard; neither edits the hub synchronously (the hub may be
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
  // The server ends the connection (a cluster stream reset, a shutdown);
  // the client should reconnect and recover as `code` says.
  virtual void disconnect(protocol::DisconnectCode code) = 0;

 protected:
  Subscriber() = default;
  ~Subscriber() = default;
  Subscriber(const Subscriber&) = default;
  Subscriber& operator=(const Subscriber&) = default;
};

}  // namespace herald::gateway::fanout
