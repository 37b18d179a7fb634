// RoomListFeed: one connection's live room list (the `rooms.*` commands of
// docs/protocol.md), built on herald::live.
//
// A room is listed while the connection is subscribed to it or the user is
// a member of it (state.dir: the memberships kept per user, issue 43), or
// both. Each publication the connection receives updates its room's entry:
// the preview (data.text, or the data as JSON), the sender, the time it
// arrived, a recency stamp that orders rooms by activity, and the mention
// count when data.text mentions the user (protocol/mentions.hpp; a
// membership's mentions are kept, and come from the store instead). A
// publication whose data is an object with a "rename" string renames the
// room for every watcher (the room's name is state carried by its own
// stream, as in Matrix); `rooms.tag` sets favourite / low-priority,
// `rooms.mark_unread` the user's own "unread" mark (a read clears it), and
// `rooms.notify` the notification mode, which decides the entry's
// notification count (live::notification_count: a muted room stays unread
// but asks for no attention).
//
// Unread counts are derived, never counted: each entry knows the stream's
// top (epoch, offset) and the user's read marker, and shows
// state::unread_after(read, top), the one rule. A membership's marker is
// the user's kept one; a room listed only because this connection
// subscribed starts its marker at the top the subscribe (or the first
// publication) shows, so its counts start at 0 as they always did. The
// user's own publication moves their marker to it (sending reads the room,
// as a Matrix client's send is its read receipt); `rooms.read` moves it to
// the top. When watching begins, each room's tail (its top and last
// publication) is read from the broker, so a room nobody wrote to since
// the connection opened still shows its last message and its count.
//
// live::RoomListService holds the entries; live::RoomListView sorts, filters
// and pages them for the watcher. Changes accumulate and are drained once
// per write of the connection (client::Client::before_write, which the
// WebSocket transport calls before each write: WsConnection::flush, through
// WsSession::before_write) into one push:
//
//   {"rooms":{"diffs":[{"op":"reset","values":[{...},...]},{"op":"set","index":0,"value":{...}}]}}
//
// so a burst of publications costs one diff batch. Entries that a diff
// carries are made from the feed's own per-room state at drain time. The
// feed reads and writes values only: the publication's summary and the
// push's JSON are the canonical form's (protocol/publication_summary.hpp,
// protocol/room_list_push.hpp).
// Single-threaded: it lives on the connection's shard.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/protocol/room_list_push.hpp"
#include "live/room_list/service.hpp"
#include "live/room_list/view.hpp"
#include "state/membership.hpp"

namespace herald::gateway::client {

class RoomListFeed {
 public:
  explicit RoomListFeed(std::string user);
  ~RoomListFeed();
  RoomListFeed(const RoomListFeed&) = delete;
  RoomListFeed& operator=(const RoomListFeed&) = delete;

  // The connection subscribed to or left a room. `read`: where its marker
  // starts (a recovering subscribe's position, or the stream's top);
  // nullopt: at the first top the feed learns.
  void add_subscribed(std::string_view room, std::optional<state::ReadMarker> read = {});
  void remove_subscribed(std::string_view room);
  // One of the user's memberships as kept: listed (true when it was not
  // before), with its flags, read marker and mentions.
  bool add_member(const state::Membership& m);
  // The user is no longer a member: unlisted unless subscribed here.
  void remove_member(std::string_view room);
  [[nodiscard]] bool is_member(std::string_view room) const;
  // Listed because this connection is subscribed (its publications come).
  [[nodiscard]] bool is_subscribed(std::string_view room) const;
  // Every listed room's name (to read their tails when watching begins).
  [[nodiscard]] std::vector<std::string> rooms() const;

  // The room's stream as the broker had it when watching began: its top
  // and its last publication (null: none), which arrived at `last_ms`
  // (0: unknown). What a live publication showed already is newer and
  // stays.
  void on_tail(std::string_view room, const protocol::StreamPosition& top,
               const fanout::MessagePtr& last, std::uint64_t last_ms);
  // A publication the connection received: a {"pub":...} frame, live or
  // recovered. now_ms: wall-clock milliseconds when it arrived.
  void on_publication(const fanout::MessagePtr& frame, std::uint64_t now_ms);

  // rooms.read: the user has read `room` up to its top. The marker to keep,
  // or nullopt when the room is not listed or its top is not known yet.
  [[nodiscard]] std::optional<state::ReadMarker> mark_read(std::string_view room);
  // A change of the room's flags or notification mode (rooms.tag,
  // rooms.mark_unread, rooms.notify), applied as the store applies it;
  // false if the room is not listed.
  bool set_flags(const state::SetFlags& change);

  // Starts (or restarts) watching with rooms.watch's parameters: the next
  // drain begins with a Reset of the first page.
  void watch(const protocol::RoomsWatchCmd& query);
  [[nodiscard]] bool watching() const { return view_ != nullptr; }
  // Paging: one more page (Append), or back to one page (Truncate). False
  // when not watching.
  bool page_more();
  bool page_reset();

  // The diffs since the last drain as one push line, or an empty string when
  // there are none (or nobody watches).
  [[nodiscard]] std::string drain();

 private:
  struct Room {
    live::RoomInfo info;
    std::string name;  // the room's name in the protocol
    std::string preview;
    std::string sender;
    bool subscribed = false;  // listed because this connection subscribed
    bool member = false;      // listed because the user is a member
    bool live = false;        // a publication arrived: newer than the tail
    bool top_known = false;
    protocol::StreamPosition top;
    bool read_known = false;  // false: taken at the first top learnt
    state::ReadMarker read;
    std::uint16_t flags = 0;  // a membership's kept state::MemberFlag bits
    state::NotifyMode notify = state::NotifyMode::all;
  };
  Room* find(std::string_view room);
  const Room* find(std::string_view room) const;
  Room& listed(std::string_view room);  // found, or added
  void forget_if_unlisted(std::string_view room);
  // The stream's top moved to `top` (ahead, or another epoch).
  static void learn_top(Room& r, const protocol::StreamPosition& top);
  // The item's tags, DM flag, "marked unread" and mode from r.flags and
  // r.notify.
  static void show_flags(Room& r);
  // A read: the mentions and "marked unread" go (state::SetRead's rule).
  static void clear_marks(Room& r);
  void read_up_to(Room& r, state::ReadMarker read);
  // A recency stamp for live activity at `ms`: grows with every call (above
  // every tail's, which is its time), and orders by time where the times
  // differ.
  std::uint64_t stamp_at(std::uint64_t ms);
  // The counts from the positions, then the service told.
  void update(Room& r);
  // The row a diff carries for `item`, from the feed's per-room state.
  [[nodiscard]] protocol::RoomRow row_of(const live::RoomListItem& item) const;

  std::string user_;
  live::RoomListService service_;
  std::unique_ptr<live::RoomListView> view_;
  std::unordered_map<std::string, std::unique_ptr<Room>> rooms_;  // by room name
  std::unordered_map<std::uint32_t, Room*> by_id_;
  // Rooms removed since the last drain: a diff of the pending batch may
  // still carry them, so their state stays until the batch is encoded.
  std::vector<std::unique_ptr<Room>> removed_;
  std::uint32_t next_id_ = 1;
  std::uint64_t stamp_ = 0;  // recency: grows with every publication
  live::DiffBatch<live::RoomListItem> batch_;
};

}  // namespace herald::gateway::client
