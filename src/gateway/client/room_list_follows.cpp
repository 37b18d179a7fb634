// The room list's follows: the memberships a watching connection is not
// subscribed to still move live on its list.
//
// A follow is a broker subscription made with SubscribeRequest::follow:
// the shard receives the room's publications under the broker's ordering
// contract, like a subscription's, but nobody is subscribed (no presence,
// not counted against max_subscribers) and its deliveries go to the room
// list only, never to the client as publications (Client::deliver). So a
// room's entry shows its last message and its count as they happen,
// whichever connection subscribes: what the plan asks of step 4
// (docs/plans/room-state.md).
//
// Invariant: the connection is in the shard's hub at most once per room,
// through a subscription or a follow. A subscription that becomes active
// ends the room's follow (SubscriptionEffects::join_hub); one that ends
// starts it again while the room is a membership (leave_hub). A follow
// answered after it was ended (a subscribe won the race, the membership
// went, the connection closed) is undone at once.
#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client/client.hpp"

namespace herald::gateway::client {

void Client::follow(const std::string& room, std::function<void()> then) {
  if (follows_.contains(room) || core_.stopped.load(std::memory_order_relaxed)) return then();
  const std::uint64_t generation = ++follow_generation_;
  follows_[room] = Follow{generation, false};
  protocol::SubscribeRequest request;
  request.room = room;
  request.client = client_id_;
  request.user = user_;
  request.follow = true;
  core_.broker->subscribe(
      shard_core_.index, std::move(request),
      [this, hold = hold(), room, generation,
       then = std::move(then)](const protocol::SubscribeResult& r) mutable {
        const auto it = follows_.find(room);
        const bool wanted =
            !finished_ && it != follows_.end() && it->second.generation == generation;
        if (!wanted) {
          if (!r.error && !core_.stopped.load(std::memory_order_relaxed)) {
            core_.broker->unfollow(shard_core_.index, room);
          }
          if (!finished_) then();
          return;
        }
        if (r.error) {
          // The entry shows its tail as read now, and moves again with
          // the next change of its record or the next rooms.watch.
          follows_.erase(it);
          log::info("room list: a membership cannot be followed",
                    {{"client", client_id_}, {"room", room}, {"error", r.error->message}});
          return read_tail(room, std::move(then));
        }
        it->second.joined = true;
        shard_core_.hub.join(room, this);
        if (room_list_) {
          room_list_->on_tail(room, protocol::StreamPosition{r.epoch, r.offset}, nullptr, 0);
        }
        // Its last publication, read now: every later one is delivered.
        read_tail(room, std::move(then));
      });
}

void Client::unfollow(const std::string& room) {
  const auto it = follows_.find(room);
  if (it == follows_.end()) return;
  const bool joined = it->second.joined;
  follows_.erase(it);
  if (!joined) return;  // its answer undoes it
  shard_core_.hub.leave(room, this);
  if (!core_.stopped.load(std::memory_order_relaxed)) {
    core_.broker->unfollow(shard_core_.index, room);
  }
}

void Client::unfollow_all() {
  std::vector<std::string> rooms;
  rooms.reserve(follows_.size());
  for (const auto& [room, f] : follows_) rooms.push_back(room);
  for (const std::string& room : rooms) unfollow(room);
}

bool Client::deliver_to_follow(const std::string& room, const fanout::MessagePtr& message) {
  const auto it = follows_.find(room);
  if (it == follows_.end() || !it->second.joined) return false;
  // published_ns marks publications (join/leave pushes carry 0).
  if (room_list_ && message->published_ns != 0 && state_kind_ == State::connected) {
    room_list_->on_publication(message, unix_now_ms());
    // No write of the connection's own may follow: the diffs go out at the
    // end of this turn, one push for every delivery of the turn.
    if (!room_list_push_posted_) {
      room_list_push_posted_ = true;
      boost::asio::post(lost_streams_timer_.get_executor(), [this, weak = owner_] {
        auto alive = weak.lock();
        if (!alive) return;
        room_list_push_posted_ = false;
        push_room_list();
      });
    }
  }
  return true;
}

bool Client::is_followed(const std::string& room) const {
  const auto it = follows_.find(room);
  return it != follows_.end() && it->second.joined;
}

void Client::follow_again(const std::string& room) {
  // Its stream was reset (Client::stream_lost; a cluster's master went
  // down, and the room's channel with it): followed anew, its tail read
  // again.
  unfollow(room);
  if (room_list_ && room_list_->is_member(room) && !room_list_->is_subscribed(room)) {
    follow(room, [this] { push_room_list(); });
  }
}

}  // namespace herald::gateway::client
