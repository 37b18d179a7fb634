#include "gateway/client/subscription_table.hpp"

#include <utility>

namespace herald::gateway::client {

using protocol::ErrorCode;

void SubscriptionTable::subscribe(std::uint32_t id, const std::string& room, Since since,
                                  Effects& fx, Args args) {
  if (closed_) return;
  apply(Queued{id, Op::subscribe, std::move(since), std::move(args)}, room, fx);
}

void SubscriptionTable::unsubscribe(std::uint32_t id, const std::string& room, Effects& fx) {
  if (closed_) return;
  apply(Queued{id, Op::unsubscribe, std::nullopt, {}}, room, fx);
}

void SubscriptionTable::server_unsubscribe(std::uint32_t id, const std::string& room,
                                           protocol::UnsubscribeCode code, Effects& fx) {
  if (closed_) return;
  apply(Queued{id, Op::server_unsubscribe, std::nullopt, {}, code}, room, fx);
}

void SubscriptionTable::apply(Queued cmd, const std::string& room, Effects& fx) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) {  // none
    if (cmd.op == Op::server_unsubscribe) return;
    if (cmd.op == Op::unsubscribe) {
      if (absent_ == Absent::succeeds) return fx.reply_unsubscribed(cmd.id, room);
      return fx.reply_error(cmd.id, room, ErrorCode::not_subscribed,
                            "not subscribed to '" + room + "'");
    }
    if (counted_ >= max_subscriptions_) {
      return fx.reply_error(
          cmd.id, room, ErrorCode::limit_exceeded,
          "client.max_subscriptions (" + std::to_string(max_subscriptions_) + ") reached");
    }
    rooms_.emplace(room, Entry{State::pending, cmd.id, {}, 0});
    ++counted_;
    return fx.broker_subscribe(cmd.id, room, std::move(cmd.since), std::move(cmd.args));
  }
  Entry& e = it->second;
  switch (e.state) {
    case State::pending:
      if (cmd.op == Op::server_unsubscribe) {
        // One right behind another would find the room already left.
        if (e.queue.empty() || e.queue.back().op != Op::server_unsubscribe) {
          e.queue.push_back(std::move(cmd));
        }
        return;
      }
      if (e.commands_queued >= max_pending_per_room_) {
        return fx.reply_error(cmd.id, room, ErrorCode::limit_exceeded,
                              "client.max_pending_per_room (" +
                                  std::to_string(max_pending_per_room_) +
                                  ") reached: " + std::to_string(e.commands_queued) +
                                  " commands on '" + room + "' already wait for its subscribe");
      }
      e.queue.push_back(std::move(cmd));
      ++e.commands_queued;
      return;
    case State::active:
      if (cmd.op == Op::subscribe) {
        return fx.reply_error(cmd.id, room, ErrorCode::already_subscribed,
                              "already subscribed to '" + room + "'");
      }
      rooms_.erase(it);
      --counted_;
      fx.leave_hub(room);
      fx.broker_unsubscribe(room);
      if (cmd.op == Op::server_unsubscribe) return fx.push_unsubscribed(cmd.id, room, cmd.code);
      return fx.reply_unsubscribed(cmd.id, room);
    case State::orphaned:
      return;  // only after disconnect, when commands are not applied
  }
}

void SubscriptionTable::answered(const std::string& room, bool ok, Effects& fx) {
  auto it = rooms_.find(room);
  if (it == rooms_.end() || it->second.state == State::active) return;  // nothing in flight
  Entry& e = it->second;
  if (e.state == State::orphaned) {
    rooms_.erase(it);
    if (ok) fx.broker_unsubscribe(room);
    return;
  }
  const std::uint32_t id = e.in_flight_id;
  std::vector<Queued> queue;
  queue.swap(e.queue);
  e.commands_queued = 0;
  if (ok) {
    e.state = State::active;
    fx.join_hub(room);
    fx.reply_subscribed(id, room);
  } else {
    rooms_.erase(it);
    --counted_;
    fx.reply_broker_error(id, room);
  }
  // Replay, oldest first, as if each arrived now. A replayed subscribe that
  // goes to the broker makes the room pending again, and apply() queues the
  // rest behind it in order (never over the limit: fewer remain than were
  // queued).
  for (Queued& cmd : queue) {
    if (closed_) return;
    apply(std::move(cmd), room, fx);
  }
}

void SubscriptionTable::disconnect(Effects& fx) {
  if (closed_) return;
  closed_ = true;
  counted_ = 0;
  for (auto it = rooms_.begin(); it != rooms_.end();) {
    Entry& e = it->second;
    if (e.state == State::active) {
      fx.leave_hub(it->first);
      fx.broker_unsubscribe(it->first);
      it = rooms_.erase(it);
      continue;
    }
    // pending: its answer undoes the registration; the queued commands are
    // dropped, as nobody is left to answer.
    e.state = State::orphaned;
    e.queue.clear();
    e.commands_queued = 0;
    ++it;
  }
}

bool SubscriptionTable::is_active(const std::string& room) const {
  auto it = rooms_.find(room);
  return it != rooms_.end() && it->second.state == State::active;
}

std::size_t SubscriptionTable::queued(const std::string& room) const {
  auto it = rooms_.find(room);
  return it == rooms_.end() ? 0 : it->second.commands_queued;
}

}  // namespace herald::gateway::client
