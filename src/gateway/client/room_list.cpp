// rooms.watch, rooms.page, rooms.read, rooms.tag, rooms.mark_unread,
// rooms.notify: the connection's live
// room list (client/room_list_feed.hpp), pushed as diffs before each write.
// With state.dir, the list holds the user's memberships too, and a read
// marker set on one connection is kept and shown on the others.
#include "core/log.hpp"
#include "core/time/steady_clock.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client/client.hpp"
#include "gateway/client/publish_checks.hpp"
#include "gateway/membership/notify_mode.hpp"

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

void Client::history_tail(const std::string& room,
                          std::function<void(const protocol::HistoryResult&)> then) {
  protocol::HistoryRequest last{room, 1U, std::nullopt, true};
  core_.broker->history(
      shard_core_.index, std::move(last),
      [this, hold = hold(), then = std::move(then)](const protocol::HistoryResult& r) {
        if (!finished_) then(r);
      });
}

void Client::read_tail(const std::string& room, std::function<void()> then) {
  history_tail(room, [this, room, then = std::move(then)](const protocol::HistoryResult& r) {
    if (!room_list_) return;
    // A room whose history cannot be read shows no preview, and its
    // counts start with its next publication.
    if (!r.error) {
      const fanout::MessagePtr none;
      const fanout::MessagePtr& newest = r.publications.empty() ? none : r.publications[0];
      room_list_->on_tail(room, protocol::StreamPosition{r.epoch, r.offset}, newest,
                          arrived_ms(newest));
    }
    then();
  });
}

// What a kept change's outcome tells the client, when it is a refusal.
std::optional<protocol::BrokerError> Client::refusal_of(state::Outcome outcome,
                                                        const std::string& room) const {
  const auto& limits = core_.memberships->options();
  switch (outcome) {
    case state::Outcome::done:
    case state::Outcome::unchanged:  // a join of a member, a leave of none
      return std::nullopt;
    case state::Outcome::not_member:  // left meanwhile (the server API's members_remove)
      return protocol::BrokerError{ErrorCode::not_subscribed,
                                   "not a member of '" + room + "' any more"};
    case state::Outcome::too_many_rooms:
      return protocol::BrokerError{ErrorCode::limit_exceeded,
                                   "the user is in state.max_rooms_per_user (" +
                                       std::to_string(limits.max_rooms_per_user) + ") rooms"};
    case state::Outcome::too_many_members:
      return protocol::BrokerError{ErrorCode::limit_exceeded,
                                   "the room has state.max_members_per_room (" +
                                       std::to_string(limits.max_members_per_room) + ") members"};
    case state::Outcome::bad_name:
    case state::Outcome::bad_value:
      return protocol::BrokerError{ErrorCode::bad_request, "not a membership change"};
  }
  return std::nullopt;
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
  const std::vector<std::string> rooms = room_list_->rooms();
  auto pending = std::make_shared<Pending>(Pending{rooms.size(), cmd});
  auto start = [this, id, generation, pending] {
    if (generation == watch_generation_) room_list_->watch(pending->query);
    reply(id, protocol::EmptyReply{});
  };
  if (rooms.empty()) return start();
  for (const std::string& room : rooms) {
    auto done = [pending, start] {
      if (--pending->left == 0) start();
    };
    // A membership not subscribed here is followed (room_list_follows.cpp),
    // then its tail read.
    if (room_list_->is_subscribed(room)) {
      read_tail(room, std::move(done));
    } else {
      follow(room, std::move(done));
    }
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

bool Client::keeps_memberships() const {
  return core_.membership_writer != nullptr && core_.run_on_shard && core_.each_client_of;
}

void Client::run(std::uint32_t id, protocol::RoomsReadCmd& cmd) {
  const bool member = is_member(cmd.room);
  if (!member && !is_active_subscription(id, cmd.room)) return;
  if (!room_list_ && member && keeps_memberships()) {
    // Not watching: the marker goes to the stream's top as the broker has
    // it now (what a list would have shown), then is kept.
    return history_tail(cmd.room, [this, id, room = cmd.room](const protocol::HistoryResult& r) {
      if (r.error) return reply_error(id, r.error->code, "rooms.read: " + r.error->message);
      keep(id, "rooms.read", room, state::SetRead{user_, room, {r.epoch, r.offset}});
    });
  }
  std::optional<state::ReadMarker> read;
  if (room_list_) read = room_list_->mark_read(cmd.room);
  if (!member || !read || !keeps_memberships()) return reply(id, protocol::EmptyReply{});
  keep(id, "rooms.read", cmd.room, state::SetRead{user_, cmd.room, std::move(*read)});
}

void Client::run(std::uint32_t id, protocol::RoomsTagCmd& cmd) {
  const auto tags =
      static_cast<std::uint16_t>(state::flag_if(cmd.favourite, state::kFavourite) |
                                 state::flag_if(cmd.low_priority, state::kLowPriority));
  change_flags(id, "rooms.tag",
               state::SetFlags{user_, cmd.room, tags, state::kFavourite | state::kLowPriority, {}});
}

void Client::run(std::uint32_t id, protocol::RoomsMarkUnreadCmd& cmd) {
  const std::uint16_t mark = state::flag_if(cmd.unread, state::kMarkedUnread);
  change_flags(id, "rooms.mark_unread",
               state::SetFlags{user_, cmd.room, mark, state::kMarkedUnread, {}});
}

void Client::run(std::uint32_t id, protocol::RoomsNotifyCmd& cmd) {
  change_flags(id, "rooms.notify",
               state::SetFlags{user_, cmd.room, 0, 0, membership::kept_notify_mode(cmd.mode)});
}

void Client::run(std::uint32_t id, protocol::RoomsJoinCmd& cmd) {
  change_membership(id, "rooms.join", cmd.room, state::Join{user_, cmd.room});
}

void Client::run(std::uint32_t id, protocol::RoomsLeaveCmd& cmd) {
  change_membership(id, "rooms.leave", cmd.room, state::Leave{user_, cmd.room});
}

void Client::change_membership(std::uint32_t id, std::string_view command, const std::string& room,
                               state::Change change) {
  const std::string what(command);
  if (!keeps_memberships() || core_.memberships == nullptr) {
    return reply_error(id, ErrorCode::not_available,
                       what + ": memberships are not kept on this server (state.dir is empty)");
  }
  if (auto refused = room_refusal(claims_, user_, room)) {
    return reply_error(id, refused->code, what + ": " + refused->message);
  }
  // The namespace decides whether clients manage their memberships; an
  // invitation may always be accepted or declined.
  auto kept = core_.memberships->find(user_, room);
  if (!kept) return reply_error(id, ErrorCode::internal, what + ": " + kept.error());
  const bool invited = *kept && (**kept).state == state::MemberState::invited;
  if (!invited && !core_.options.room_options(room).client_membership) {
    return reply_error(id, ErrorCode::permission_denied,
                       what + ": clients may not join or leave '" + room +
                           "' themselves (its namespace has client_membership = false)");
  }
  keep(id, command, room, std::move(change), /*self_too=*/true);
}

bool Client::is_member(const std::string& room) const {
  if (room_list_) return room_list_->is_member(room);
  // Not watching: the store says (a read on this shard, which never waits
  // on the writer).
  if (core_.memberships == nullptr) return false;
  auto kept = core_.memberships->find(user_, room);
  return kept && *kept;
}

void Client::change_flags(std::uint32_t id, std::string_view command, state::SetFlags change) {
  const bool member = is_member(change.room);
  if (!member && !is_active_subscription(id, change.room)) return;
  if (room_list_) room_list_->set_flags(change);
  if (!member || !keeps_memberships()) return reply(id, protocol::EmptyReply{});
  const std::string room = change.room;
  keep(id, command, room, std::move(change));
}

void Client::keep(std::uint32_t id, std::string_view command, const std::string& room,
                  state::Change change, bool self_too) {
  // The writer answers on its own thread; the rest runs on this shard.
  auto on_shard = [this, weak = owner_, id, command = std::string(command), room, self_too,
                   run = core_.run_on_shard,
                   shard = shard_core_.index](const Result<state::Outcome, std::string>& outcome) {
    run(shard, [this, weak, id, command, room, self_too, outcome] {
      auto alive = weak.lock();
      if (!alive || finished_) return;
      if (!outcome) return reply_error(id, ErrorCode::internal, command + ": " + outcome.error());
      // Left meanwhile (the server API's members_remove): nothing kept.
      if (auto refused = refusal_of(*outcome, room)) {
        return reply_error(id, refused->code, command + ": " + refused->message);
      }
      reply(id, protocol::EmptyReply{});
      core_.each_client_of(user_, [self = self_too ? std::string() : client_id_, room](Client& c) {
        if (c.id() != self) c.membership_changed(room);
      });
    });
  };
  if (!core_.membership_writer->submit(std::move(change), std::move(on_shard))) {
    reply_error(id, ErrorCode::unavailable,
                std::string(command) + ": " + std::string(state::Writer::kQueueFull));
  }
}

void Client::membership_changed(const std::string& room) {
  if (!room_list_ || !reading() || core_.memberships == nullptr) return;
  auto kept = core_.memberships->find(user_, room);
  if (!kept) {
    log::warn("room list: a membership could not be read",
              {{"user", user_}, {"room", room}, {"error", kept.error()}});
    return;
  }
  if (!*kept) {
    unfollow(room);
    room_list_->remove_member(room);
  } else if (room_list_->add_member(**kept) && !room_list_->is_subscribed(room)) {
    // Newly listed: followed, and its tail read, then shown (nothing of
    // this connection's own may be written soon, so pushed now).
    return follow(room, [this] { push_room_list(); });
  } else if (!room_list_->is_subscribed(room) && !follows_.contains(room)) {
    // Listed and neither subscribed nor followed (its follow was
    // refused): its tail read again, as the only news of it.
    return read_tail(room, [this] { push_room_list(); });
  }
  push_room_list();
}

}  // namespace herald::gateway::client
