// Centrifugo's client protocol v2 commands in JSON (centrifugal/protocol,
// definitions/client.proto), read into the command values of
// protocol/command.hpp. A frame holds one or more commands, one JSON object
// per line, as in Herald's protocol; what differs is the object:
//
//   {"id":2,"subscribe":{"channel":"chat:lobby","recover":true,"epoch":"e","offset":41}}
//   {}                                   the client's pong to the server's ping
//   {"send":{"data":{...}}}              an asynchronous message: no id, no reply
//
// - "id" is optional on the wire: a command without one is a pong (nothing
//   else in the object) or a send; any other command without an id is a
//   client that does not speak the protocol (refused without an id: the
//   core closes the connection with bad request, as Centrifugo does).
// - The method is the first key that names one; Centrifugo's SDKs put
//   fields Herald does not use beside them (name, version, flag, delta,
//   positioned, recoverable, ...), which are ignored, not refused, since
//   newer SDKs add more. A subscribe's join_leave (the SDK's joinLeave) is
//   read: only a subscription that asks is sent join and leave pushes.
// - Rooms are channels ("channel"), a subscription's position is
//   recover/epoch/offset at the top of the request, a history's since is
//   {offset, epoch} with either left out when zero.
//
// The codec (codec/centrifugo_json.hpp) runs it per line; the fuzz target
// centrifugo_command runs it on anything.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <variant>

#include "gateway/protocol/command.hpp"

namespace herald::gateway::codec {

// A line that asks nothing of the core: the pong `{}`, or a send (which
// Herald has no handler for yet; docs/centrifugo.md).
struct NoCommand {
  bool send = false;
};

using CentrifugoParse = std::variant<protocol::Command, protocol::CommandError, NoCommand>;

// Holds a reusable JSON parser: one per shard, not thread-safe.
class CentrifugoCommandParser {
 public:
  // Lines longer than max_line_bytes are refused without being parsed.
  explicit CentrifugoCommandParser(std::size_t max_line_bytes);
  ~CentrifugoCommandParser();
  CentrifugoCommandParser(const CentrifugoCommandParser&) = delete;
  CentrifugoCommandParser& operator=(const CentrifugoCommandParser&) = delete;

  [[nodiscard]] CentrifugoParse parse(std::string_view line);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace herald::gateway::codec
