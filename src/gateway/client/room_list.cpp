// rooms.watch, rooms.page, rooms.read, rooms.tag: the connection's live
// room list (client/room_list_feed.hpp), pushed as diffs before each write.
#include "gateway/client/client.hpp"

namespace herald::gateway::client {
using protocol::ErrorCode;

void Client::run(std::uint32_t id, protocol::RoomsWatchCmd& cmd) {
  if (!room_list_) {
    room_list_ = std::make_unique<RoomListFeed>(user_);
    subscriptions_.for_each_active([this](const std::string& room) { room_list_->add_room(room); });
  }
  room_list_->watch(cmd);
  reply(id, protocol::EmptyReply{});  // the Reset follows in the same flush
}

void Client::run(std::uint32_t id, protocol::RoomsPageCmd& cmd) {
  if (!room_list_) {
    return reply_error(id, ErrorCode::bad_request, "rooms.page: send rooms.watch first");
  }
  if (cmd.more) {
    room_list_->page_more();
  } else {
    room_list_->page_reset();
  }
  reply(id, protocol::EmptyReply{});
}

void Client::run(std::uint32_t id, protocol::RoomsReadCmd& cmd) {
  if (!is_active_subscription(id, cmd.room)) return;
  if (room_list_) room_list_->mark_read(cmd.room);
  reply(id, protocol::EmptyReply{});
}

void Client::run(std::uint32_t id, protocol::RoomsTagCmd& cmd) {
  if (!is_active_subscription(id, cmd.room)) return;
  if (room_list_) room_list_->set_tags(cmd.room, cmd.favourite, cmd.low_priority);
  reply(id, protocol::EmptyReply{});
}

}  // namespace herald::gateway::client
