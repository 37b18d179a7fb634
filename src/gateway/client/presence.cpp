// presence and presence_stats: who is in a room, where the namespace
// tracks it.
#include "gateway/client/client.hpp"

namespace herald::gateway::client {
using protocol::ErrorCode;

void Client::run(std::uint32_t id, protocol::PresenceStatsCmd& cmd) {
  ask_presence(id, cmd.room, true);
}

void Client::run(std::uint32_t id, protocol::PresenceCmd& cmd) {
  ask_presence(id, cmd.room, false);
}

void Client::ask_presence(std::uint32_t id, std::string& room, bool stats) {
  if (!check_room(id, room)) return;
  if (!core_.options.room_options(room).presence) {
    return reply_error(id, ErrorCode::not_available, "presence is off for '" + room + "'");
  }
  core_.broker->presence(shard_core_.index, std::move(room),
                         [this, hold = hold(), id, stats](protocol::PresenceResult r) {
                           if (finished_) return;
                           if (r.error) return reply_error(id, r.error->code, r.error->message);
                           reply(id, protocol::PresenceReply{r, stats});
                         });
}

}  // namespace herald::gateway::client
