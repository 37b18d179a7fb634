// What the client core hands its transport: replies and pushes as values,
// and the decisions to end the connection. The core knows neither how
// commands were decoded nor how bytes leave; a transport implements this
// (ws/ws_session.hpp encodes through its endpoint's codec and frames
// WebSocket messages; sse/sse_session.hpp writes event-stream events).
//
// Every call runs on the client's shard, in the order the core decides,
// and must not call back into the core synchronously (the hub may be
// iterating: fanout/subscriber.hpp), except Client::close_slow_consumer,
// which defers its close for exactly this reason.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/codes.hpp"
#include "gateway/protocol/replies.hpp"

namespace herald::gateway::client {

class Output {
 public:
  virtual void reply(std::uint32_t id, const protocol::Reply& reply) = 0;
  virtual void reply_error(std::uint32_t id, protocol::ErrorCode code,
                           std::string_view message) = 0;
  // A push in its canonical form: a publication, join or leave the hub
  // delivered to `room`, or the room list's diffs (room empty).
  virtual void push(const std::string& room, const fanout::MessagePtr& message) = 0;
  // A disconnect push after what is queued, then the end of the connection.
  virtual void disconnect(std::uint16_t code, std::string_view reason, bool reconnect) = 0;
  // The end of the connection at once, dropping what no write has started
  // (a slow consumer).
  virtual void close_now(protocol::DisconnectCode code) = 0;

 protected:
  Output() = default;
  ~Output() = default;
  Output(const Output&) = default;
  Output& operator=(const Output&) = default;
};

}  // namespace herald::gateway::client
