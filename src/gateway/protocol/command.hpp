// Client commands as values: what a codec decodes from its wire
// (codec/codec.hpp) and the client core executes (client/client.hpp), the
// same whatever the protocol. Herald's JSON lines are one such wire
// (codec/herald_json_parser.hpp):
//
//   {"id":1,"subscribe":{"room":"chat:lobby","since":{"epoch":"c3f1","offset":41}}}
//
// docs/protocol.md is the reference of every command.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gateway/protocol/codes.hpp"
#include "live/room_list/filter_expr.hpp"
#include "live/room_list/item.hpp"
#include "live/room_list/sorters.hpp"

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
// A fresh token for the connected client (client-side refresh): the same
// user ("sub"), a later "exp".
struct RefreshCmd {
  std::string token;
};
struct SubscribeCmd {
  std::string room;
  std::string data;  // for the subscribe hook: "data" re-serialized compactly; empty when absent
  std::optional<StreamPosition> since;
  std::string token;  // a subscription token (a private room's), or empty
  // Whether the client asks for the room's join and leave pushes
  // (Centrifugo's join_leave); unset where the protocol cannot ask
  // (Herald's: it gets them wherever the room sends them).
  std::optional<bool> join_leave;
};
// A subscription token's refresh: the same room and user, a new expiry.
struct SubRefreshCmd {
  std::string room;
  std::string token;
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
  live::RoomSorter sort = live::default_room_sorter();  // "activity"
  live::RoomFilterExpr filter;                          // every room
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
struct RoomsMarkUnreadCmd {
  std::string room;
  bool unread = true;  // false: clears the mark (a read clears it too)
};
struct RoomsJoinCmd {  // a membership the client asks for, or an invitation accepted
  std::string room;
};
struct RoomsLeaveCmd {
  std::string room;
};
struct RoomsNotifyCmd {
  std::string room;
  live::NotifyMode mode = live::NotifyMode::all;
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
  SEP X(RefreshCmd)                    \
  SEP X(SubscribeCmd)                  \
  SEP X(SubRefreshCmd)                 \
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
  SEP X(RoomsTagCmd)                   \
  SEP X(RoomsMarkUnreadCmd)            \
  SEP X(RoomsNotifyCmd)                \
  SEP X(RoomsJoinCmd)                  \
  SEP X(RoomsLeaveCmd)
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

}  // namespace herald::gateway::protocol
