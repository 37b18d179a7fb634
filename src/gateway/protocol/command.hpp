// Client commands, as parsed from one line of a WebSocket text frame.
//
//   {"id":1,"subscribe":{"room":"chat:lobby","since":{"epoch":"c3f1","offset":41}}}
//
// A frame may hold several commands, one JSON object per line ('\n'), so a
// client can batch. Each line is one object with a positive integer "id" and
// exactly one other key naming the command, whose value is an object of
// parameters. docs/protocol.md is the reference.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/result.hpp"
#include "gateway/protocol/codes.hpp"

namespace herald::gateway::protocol {

// A position in a room's stream: the stream's epoch and the offset of the
// last publication the client has seen.
struct StreamPosition {
  std::string epoch;
  std::uint64_t offset = 0;
  friend bool operator==(const StreamPosition&, const StreamPosition&) = default;
};

// Where a client stopped in each room: {"room":{"since":{"epoch","offset"}}}.
using RoomPositions = std::vector<std::pair<std::string, StreamPosition>>;

struct ConnectCmd {
  std::string token;  // a JWT; empty in dev mode
  std::string user;   // dev mode only: the user to connect as
  std::string data;   // for the connect hook: "data" re-serialized compactly; empty when absent
  // "subs": positions to recover server-side subscriptions from, as a
  // subscribe's since (a reconnecting client's; rooms not granted are
  // ignored).
  RoomPositions subs;
};
struct SubscribeCmd {
  std::string room;
  std::string data;  // for the subscribe hook: "data" re-serialized compactly; empty when absent
  std::optional<StreamPosition> since;
};
struct UnsubscribeCmd {
  std::string room;
};
struct PublishCmd {
  std::string room;
  std::string data;  // the value of "data", re-serialized compactly (valid JSON)
};
struct HistoryCmd {
  std::string room;
  std::optional<std::uint32_t> limit;
  std::optional<StreamPosition> since;
  bool reverse = false;
};
struct PresenceCmd {
  std::string room;
};
struct PresenceStatsCmd {
  std::string room;
};
struct PingCmd {};
// An application call relayed to the backend (proxy.rpc_url, docs/backend.md).
struct RpcCmd {
  std::string method;
  std::string data;  // the value of "data" re-serialized compactly; empty when absent
};

// The room list (docs/protocol.md, "Room lists").
struct RoomsWatchCmd {
  enum class Sort : std::uint8_t { activity, name };
  Sort sort = Sort::activity;
  bool unread = false;     // filter.unread
  bool mentions = false;   // filter.mentions
  bool favourite = false;  // filter.favourite
  std::string name;        // filter.name: the name contains it (case-insensitive)
  std::uint32_t page_size = 20;
};
struct RoomsPageCmd {
  bool more = false;   // one more page
  bool reset = false;  // back to one page
};
struct RoomsReadCmd {
  std::string room;
};
struct RoomsTagCmd {
  std::string room;
  bool favourite = false;
  bool low_priority = false;
};

// Limit of rooms.watch page_size: a page is pushed as one message.
inline constexpr std::uint32_t kMaxRoomPageSize = 1000;

// Every command type, once. The variant below and the client core's
// handlers (client/client.hpp declares one `run` per entry, defined in the
// file of its family) are made from this list, so that a new command is a
// struct and a line here, its decoding in a codec, and its handler: three
// files (HACKING.md, "Add a client command"). X(Type) for each; SEP between
// entries.
// NOLINTBEGIN(cppcoreguidelines-macro-usage): a list, expanded in two places
#define HERALD_CLIENT_COMMANDS(X, SEP) \
  X(ConnectCmd)                        \
  SEP X(SubscribeCmd)                  \
  SEP X(UnsubscribeCmd)                \
  SEP X(PublishCmd)                    \
  SEP X(HistoryCmd)                    \
  SEP X(PresenceCmd)                   \
  SEP X(PresenceStatsCmd)              \
  SEP X(PingCmd)                       \
  SEP X(RpcCmd)                        \
  SEP X(RoomsWatchCmd)                 \
  SEP X(RoomsPageCmd)                  \
  SEP X(RoomsReadCmd)                  \
  SEP X(RoomsTagCmd)
#define HERALD_COMMAND_TYPE(T) T
#define HERALD_COMMAND_COMMA ,
// NOLINTEND(cppcoreguidelines-macro-usage)

using CommandBody = std::variant<HERALD_CLIENT_COMMANDS(HERALD_COMMAND_TYPE, HERALD_COMMAND_COMMA)>;

struct Command {
  std::uint32_t id = 0;
  CommandBody body;
};

// Why a line was refused. With an id, the client gets an error reply and the
// connection goes on; without one (bad JSON, no usable id) the protocol
// stream cannot be trusted and the connection is closed with
// DisconnectCode::bad_request.
struct CommandError {
  std::uint32_t id = 0;  // 0: no usable id
  ErrorCode code = ErrorCode::bad_request;
  std::string message;
};

using ParseResult = std::variant<Command, CommandError>;

// Parses lines. Holds a reusable JSON parser, so it is cheap to call per
// line; not thread-safe (one per shard).
class CommandParser {
 public:
  // Lines longer than max_line_bytes are refused without being parsed.
  explicit CommandParser(std::size_t max_line_bytes);
  ~CommandParser();
  CommandParser(const CommandParser&) = delete;
  CommandParser& operator=(const CommandParser&) = delete;

  [[nodiscard]] ParseResult parse(std::string_view line);

  // Parses a JSON document as the "data" of a publication: returns it
  // re-serialized compactly, or a message when it is not JSON.
  [[nodiscard]] herald::Result<std::string, std::string> normalize_json(std::string_view text);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Calls f(line) for each non-empty line of a frame ('\n' separated; a
// trailing '\r' on a line is dropped).
template <class F>
void for_each_line(std::string_view frame, F&& f) {
  while (!frame.empty()) {
    auto nl = frame.find('\n');
    std::string_view line = frame.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) f(line);
    if (nl == std::string_view::npos) break;
    frame.remove_prefix(nl + 1);
  }
}

}  // namespace herald::gateway::protocol
