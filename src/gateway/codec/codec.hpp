// A client wire protocol, as two halves the client core never sees:
// decoding a transport message into commands, and encoding the core's
// replies and pushes back into bytes. The core (gateway/client/) speaks
// protocol values only (protocol/command.hpp, protocol/replies.hpp); a
// WebSocket endpoint pairs it with one codec (ws/ws_session.hpp), so
// speaking another protocol means writing another Codec, with the same
// client, hub and broker under it.
//
// Pushes are the part that fans out. The broker makes each publication
// once, in the canonical form (Herald's JSON line: protocol/encode.hpp),
// and shares it with every shard; a codec other than the canonical one
// turns that line into its own form through fanout::Message::encoded,
// which keeps the result in the message: a publication is encoded once
// per codec in use, never once per subscriber (tests/gateway/
// fanout_alloc_test.cpp pins it with two codecs).
//
// Threading: one Codec per shard (decode() holds a reusable parser);
// encode_push() may run on any shard's thread for a message another shard
// created, so it must touch only its argument and immutable state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "gateway/protocol/codes.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/protocol/replies.hpp"

namespace herald::gateway::codec {

// Where decoded commands go, in order. Each call returns false to stop
// decoding the rest of the message (the connection is closing).
class CommandSink {
 public:
  virtual bool on_command(protocol::Command& command) = 0;
  // A command the codec could not read: with an id it is answered with an
  // error; without one the connection cannot be trusted (bad_request).
  virtual bool on_refused(const protocol::CommandError& error) = 0;

 protected:
  CommandSink() = default;
  ~CommandSink() = default;
  CommandSink(const CommandSink&) = default;
  CommandSink& operator=(const CommandSink&) = default;
};

class Codec {
 public:
  virtual ~Codec() = default;

  // One text message of the transport (a WebSocket text frame).
  virtual void decode(std::string_view message, CommandSink& sink) = 0;

  [[nodiscard]] virtual std::string encode_reply(std::uint32_t id,
                                                 const protocol::Reply& reply) const = 0;
  [[nodiscard]] virtual std::string encode_error(std::uint32_t id, protocol::ErrorCode code,
                                                 std::string_view message) const = 0;
  [[nodiscard]] virtual std::string encode_disconnect(std::uint16_t code, std::string_view reason,
                                                      bool reconnect) const = 0;
  // A push (publication, join, leave, room-list diffs) from its canonical
  // line. Not called for the canonical codec, whose pushes are the line.
  // Empty: this protocol has no such push (Centrifugo's has no room list),
  // and the transport sends nothing.
  [[nodiscard]] virtual std::string encode_push(std::string_view canonical) const = 0;

  // The close frame ending a connection the core disconnects with Herald's
  // `code` (protocol/codes.hpp, or a backend's 4000-4999) and `reason`:
  // Herald's own protocol closes with them as they are; another protocol
  // with its own code for the same cause, which encode_disconnect's push
  // carries too.
  struct Close {
    std::uint16_t code;
    std::string reason;
  };
  [[nodiscard]] virtual Close close_frame(std::uint16_t code, std::string_view reason) const {
    return {code, std::string(reason)};
  }

  // The protocol's own ping, sent every keep-alive period (half of
  // client.idle_timeout) in place of a WebSocket ping frame; empty when the
  // protocol has none (Herald's: WebSocket pings only). A client that
  // sends nothing back within the next period is closed either way.
  [[nodiscard]] virtual std::string_view ping_message() const { return {}; }

  // Whether the protocol's clients send refresh only once their token has
  // expired (Centrifugo's SDKs do, at the ttl the connect reply gives), so
  // the connection must outlive exp by client.refresh_grace for it.
  [[nodiscard]] virtual bool refreshes_at_expiry() const { return false; }

  // Whether a room whose stream was lost is recovered by the client
  // subscribing to it again, told by an unsubscribe push (Centrifugo's SDKs
  // resubscribe on code 2500), rather than by reconnecting (3005):
  // client::Setup::resubscribes_lost_streams.
  [[nodiscard]] virtual bool resubscribes_lost_streams() const { return false; }

  // Whether unsubscribing from a room the client is not in succeeds (the
  // protocol makes unsubscribe idempotent) or is refused (not_subscribed).
  [[nodiscard]] virtual bool unsubscribe_is_idempotent() const { return false; }
};

// Makes the codec of one shard (Server::add_websocket_endpoint).
using CodecFactory = std::function<std::unique_ptr<Codec>()>;

}  // namespace herald::gateway::codec
