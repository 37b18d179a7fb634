// RoomListFeed: one connection's live room list (the `rooms.*` commands of
// docs/protocol.md), built on herald::live.
//
// The rooms of the list are the rooms the connection is subscribed to. Each
// publication the connection receives updates its room's entry: the preview
// (data.text, or the data as JSON), the sender, the time it arrived, a
// recency stamp that orders rooms by activity, the unread count, and the
// mention count when data.text contains "@<user>". A publication whose data
// is an object with a "rename" string renames the room for every watcher
// (the room's name is state carried by its own stream, as in Matrix). A read
// marker (`rooms.read`) clears the unread and mention counts; `rooms.tag`
// sets favourite / low-priority.
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
#include <vector>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/protocol/room_list_push.hpp"
#include "live/room_list/service.hpp"
#include "live/room_list/view.hpp"

namespace herald::gateway::client {

class RoomListFeed {
 public:
  explicit RoomListFeed(std::string user);
  ~RoomListFeed();
  RoomListFeed(const RoomListFeed&) = delete;
  RoomListFeed& operator=(const RoomListFeed&) = delete;

  // Membership: the connection subscribed to or left a room.
  void add_room(std::string_view room);
  void remove_room(std::string_view room);

  // A publication the connection received: a {"pub":...} frame, live or
  // recovered. now_ms: wall-clock milliseconds when it arrived.
  void on_publication(const fanout::MessagePtr& frame, std::uint64_t now_ms);

  // Read marker: the watcher has seen everything in `room`. False if the
  // connection is not subscribed to it.
  bool mark_read(std::string_view room);
  // Tags; false if the connection is not subscribed to it.
  bool set_tags(std::string_view room, bool favourite, bool low_priority);

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
  };
  Room* find(std::string_view room);
  void update(Room& r);
  // The row a diff carries for `item`, from the feed's per-room state.
  [[nodiscard]] protocol::RoomRow row_of(const live::RoomListItem& item) const;

  std::string user_;
  std::string mention_;  // "@" + user
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
