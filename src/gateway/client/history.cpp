// history: a room's stream read back, where the namespace keeps one.
#include "gateway/client/client.hpp"

namespace herald::gateway::client {
using protocol::ErrorCode;

void Client::run(std::uint32_t id, protocol::HistoryCmd& cmd) {
  if (!check_room(id, cmd.room)) return;
  if (core_.options.room_options(cmd.room).history_size == 0) {
    return reply_error(id, ErrorCode::not_available, "history is off for '" + cmd.room + "'");
  }
  protocol::HistoryRequest req{std::move(cmd.room), cmd.limit, std::move(cmd.since), cmd.reverse};
  core_.broker->history(shard_core_.index, std::move(req),
                        [this, hold = hold(), id](protocol::HistoryResult r) {
                          if (finished_) return;
                          if (r.error) return reply_error(id, r.error->code, r.error->message);
                          reply(id, protocol::HistoryReply{r});
                        });
}

}  // namespace herald::gateway::client
