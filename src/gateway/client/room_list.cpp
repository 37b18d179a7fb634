// rooms.watch, rooms.page, rooms.read, rooms.tag: the connection's live
// room list (client/room_list_feed.hpp), pushed as diffs before each write.
// With state.dir, the list holds the user's memberships too, and a read
// marker set on one connection is kept and shown on the others.
#include "core/time/steady_clock.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client/client.hpp"

namespace herald::gateway::client {
using protocol::ErrorCode;

namespace {

// When a kept publication arrived, as wall-clock milliseconds: its
// steady-clock stamp taken back from now. 0 when it has none (the
// cluster's history frames) or one this process did not make.
std::uint64_t arrived_ms(const fanout::MessagePtr& p) {
  const std::int64_t at = p ? p->published_ns : 0;
  const std::int64_t now = steady_now_ns();
  if (at <= 0 || at > now) return 0;
  // Safety: now - at is positive (checked above), and at most the process's age.
  const auto ago_ms = static_cast<std::uint64_t>((now - at) / 1'000'000);
  const std::uint64_t wall = unix_now_ms();
  return ago_ms < wall ? wall - ago_ms : 0;
}

}  // namespace

void Client::push_room_list() {
  if (!room_list_ || state_kind_ != State::connected) return;
  std::string diffs = room_list_->drain();
  if (!diffs.empty()) out_.push({}, fanout::make_message(std::move(diffs)));
}

void Client::run(std::uint32_t id, protocol::RoomsWatchCmd& cmd) {
  const std::uint64_t generation = ++watch_generation_;
  if (room_list_) {
    room_list_->watch(cmd);
    return reply(id, protocol::EmptyReply{});  // the Reset follows in the same flush
  }
  room_list_ = std::make_unique<RoomListFeed>(user_);
  subscriptions_.for_each_active(
      [this](const std::string& room) { room_list_->add_subscribed(room); });
  if (core_.memberships != nullptr) {
    auto kept = core_.memberships->rooms_of(user_);
    if (!kept) {
      room_list_.reset();
      return reply_error(id, ErrorCode::internal, "rooms.watch: " + kept.error());
    }
    for (const state::Membership& m : *kept) room_list_->add_member(m);
  }
  // Each room's tail, then the first Reset (the reply and it in one flush).
  struct Pending {
    std::size_t left;
    protocol::RoomsWatchCmd query;
  };
  std::vector<std::string> rooms = room_list_->rooms();
  auto pending = std::make_shared<Pending>(Pending{rooms.size(), cmd});
  auto start = [this, id, generation, pending] {
    if (generation == watch_generation_) room_list_->watch(pending->query);
    reply(id, protocol::EmptyReply{});
  };
  if (rooms.empty()) return start();
  for (std::string& room : rooms) {
    protocol::HistoryRequest last{room, 1U, std::nullopt, true};
    core_.broker->history(
        shard_core_.index, std::move(last),
        [this, hold = hold(), room, pending, start](const protocol::HistoryResult& r) {
          if (finished_ || !room_list_) return;
          // A room whose history cannot be read shows no preview, and its
          // counts start with its next publication.
          if (!r.error) {
            const fanout::MessagePtr none;
            const fanout::MessagePtr& newest = r.publications.empty() ? none : r.publications[0];
            room_list_->on_tail(room, protocol::StreamPosition{r.epoch, r.offset}, newest,
                                arrived_ms(newest));
          }
          if (--pending->left == 0) start();
        });
  }
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
  const bool member = room_list_ && room_list_->is_member(cmd.room);
  if (!member && !is_active_subscription(id, cmd.room)) return;
  std::optional<state::ReadMarker> read;
  if (room_list_) read = room_list_->mark_read(cmd.room);
  if (!member || !read || core_.membership_writer == nullptr || !core_.run_on_shard) {
    return reply(id, protocol::EmptyReply{});
  }
  keep_read(id, cmd.room, *read);
}

void Client::keep_read(std::uint32_t id, const std::string& room, const state::ReadMarker& read) {
  // The writer answers on its own thread; the rest runs on this shard.
  auto on_shard = [this, weak = owner_, id, room, read, run = core_.run_on_shard,
                   shard = shard_core_.index](const Result<state::Outcome, std::string>& outcome) {
    run(shard, [this, weak, id, room, read, outcome] {
      auto alive = weak.lock();
      if (!alive || finished_) return;
      if (!outcome) return reply_error(id, ErrorCode::internal, "rooms.read: " + outcome.error());
      // Left meanwhile (the server API's members_remove): nothing kept.
      if (*outcome == state::Outcome::not_member) {
        return reply_error(id, ErrorCode::not_subscribed,
                           "rooms.read: not a member of '" + room + "' any more");
      }
      reply(id, protocol::EmptyReply{});
      if (!core_.each_client_of) return;
      core_.each_client_of(user_, [self = client_id_, room, read](Client& c) {
        if (c.id() != self) c.read_elsewhere(room, read);
      });
    });
  };
  if (!core_.membership_writer->submit(state::SetRead{user_, room, read}, std::move(on_shard))) {
    reply_error(id, ErrorCode::unavailable,
                "rooms.read: state.max_queue changes wait to be committed already: retry");
  }
}

void Client::read_elsewhere(const std::string& room, const state::ReadMarker& read) {
  if (!room_list_ || !reading()) return;
  room_list_->apply_read(room, read);
  push_room_list();  // nothing of this connection's own may be written soon
}

void Client::run(std::uint32_t id, protocol::RoomsTagCmd& cmd) {
  const bool member = room_list_ && room_list_->is_member(cmd.room);
  if (!member && !is_active_subscription(id, cmd.room)) return;
  if (room_list_) room_list_->set_tags(cmd.room, cmd.favourite, cmd.low_priority);
  reply(id, protocol::EmptyReply{});
}

}  // namespace herald::gateway::client
