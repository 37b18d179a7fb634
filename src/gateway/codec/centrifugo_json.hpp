// Centrifugo's client protocol v2 in JSON, so that Centrifugo's SDKs
// (centrifuge-js and the others) talk to Herald unchanged, on the endpoint
// they expect (/connection/websocket). It is a second codec under the same
// client core as Herald's own (codec/herald_json.hpp): the same commands,
// rooms, history, presence and recovery, so a Centrifugo client and a
// Herald client in one room see each other's publications.
//
// What it changes is the wire (docs/centrifugo.md has the whole mapping):
//   - commands: codec/centrifugo_json_parser.hpp;
//   - replies keyed by their command, {"id":3,"publish":{}}, an empty result
//     still written (the SDK dereferences it);
//   - errors {"id":3,"error":{"code":103,"message":"..","temporary":true}}
//     and disconnects in Centrifugo's codes (codec/centrifugo_codes.hpp);
//   - pushes {"push":{"channel":"..","pub":{"data":..,"info":..,"offset":N}}},
//     made from the canonical line once per publication (fanout::Message
//     keeps it), with Centrifugo's ClientInfo (user, client, conn_info,
//     chan_info) for Herald's info; the room list, which Centrifugo does
//     not have, is not sent;
//   - unsubscribe is idempotent (its SDK reconnects on an unsubscribe
//     error);
//   - the server's unsubscribe is a push with Centrifugo's codes (Herald's
//     are the same numbers: 2000 server, 2500 "subscribe again"), and a
//     room whose stream was lost gets that push, 2500, where Herald's
//     protocol reconnects: the SDK resubscribes and recovers that room
//     alone;
//   - the keep-alive ping is the line {} every period, which the SDK
//     answers with {} and times out without (the connect reply's "ping").
//
// Threading as every codec (codec/codec.hpp): decode() on its shard only;
// the encoders touch only their arguments and a parser of their thread's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "gateway/codec/centrifugo_json_parser.hpp"
#include "gateway/codec/codec.hpp"

namespace herald::gateway::codec {

class CentrifugoJson final : public Codec {
 public:
  // Lines longer than `max_line_bytes` (client.max_message_bytes) are
  // refused unparsed. `ping_interval`: the keep-alive period (half of
  // client.idle_timeout) the connect reply announces, so the SDK knows how
  // long a silence means a dead connection; zero announces none.
  CentrifugoJson(std::size_t max_line_bytes, std::chrono::milliseconds ping_interval);

  void decode(std::string_view message, CommandSink& sink) override;
  [[nodiscard]] std::string encode_reply(std::uint32_t id,
                                         const protocol::Reply& reply) const override;
  [[nodiscard]] std::string encode_error(std::uint32_t id, protocol::ErrorCode code,
                                         std::string_view message) const override;
  [[nodiscard]] std::string encode_disconnect(std::uint16_t code, std::string_view reason,
                                              bool reconnect) const override;
  [[nodiscard]] std::string encode_push(std::string_view canonical) const override;
  [[nodiscard]] Close close_frame(std::uint16_t code, std::string_view reason) const override;
  [[nodiscard]] bool unsubscribe_is_idempotent() const override { return true; }
  [[nodiscard]] bool refreshes_at_expiry() const override { return true; }
  [[nodiscard]] bool resubscribes_lost_streams() const override { return true; }
  // The ping is the empty reply {}; the SDK answers it with {} (the connect
  // reply says "pong":true).
  [[nodiscard]] std::string_view ping_message() const override { return "{}"; }

 private:
  CentrifugoCommandParser parser_;
  std::uint32_t ping_seconds_;  // announced in the connect reply; 0: none
};

}  // namespace herald::gateway::codec
