// subscribe and unsubscribe: the SubscriptionTable decides
// (client/subscription_table.hpp), the effects below carry its decisions
// out, with the subscribe hook asked first where the namespace says so.
#include "core/log.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client/client.hpp"
#include "gateway/client/publish_checks.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/room_name.hpp"
#include "gateway/proxy/room_hooks.hpp"

namespace herald::gateway::client {
using protocol::ErrorCode;

// The SubscriptionTable decides; this carries its decisions out on the
// session. `answer` is the broker's answer being handled, when there is one.
struct Client::SubscriptionEffects final : SubscriptionTable::Effects {
  explicit SubscriptionEffects(Client& session,
                               const protocol::SubscribeResult* broker_answer = nullptr,
                               std::string_view backend_data = {}, bool was_recovering = false,
                               std::optional<TokenGrant> grant = {}, SubscriptionFlags made = {})
      : s(session),
        answer(broker_answer),
        data(backend_data),
        recovering(was_recovering),
        token(grant),
        flags(made) {}

  // A namespace with subscribe_proxy asks the backend first; the table sees
  // the backend's decision and the broker's answer as one subscribe in
  // flight, so its ordering and limits hold unchanged. Server-side
  // subscriptions (id 0) were granted by the connect hook or the token.
  void broker_subscribe(std::uint32_t id, const std::string& room, SubscriptionTable::Since since,
                        SubscriptionTable::Args args) override {
    const RoomOptions& options = s.core_.options.room_options(room);
    const SubscriptionFlags made = subscription_flags(options, args.override, args.join_leave);
    if (!args.granted_by_token && id != 0 && options.subscribe_proxy) {
      return s.proxy_subscribe(room, std::move(since), made, args.data);
    }
    // A subscription token, or a server-side subscribe (the API's, or a
    // token's subs), may give the client's chan_info, the data it carries
    // to the client and its end (each empty otherwise).
    std::optional<TokenGrant> grant;
    if (args.granted_by_token || args.expires) grant = TokenGrant{args.expires};
    s.subscribe_with_broker(room, std::move(since), made, args.chan_info_json,
                            std::move(args.server_data), grant);
  }
  void broker_unsubscribe(const std::string& room) override {
    std::optional<std::string> leave_info;
    if (s.announced_rooms_.erase(room) != 0) leave_info = s.info_in(room);
    s.chan_infos_.erase(room);
    // After the server stopped its shards, the broker must not be called
    // (its io_contexts are being torn down); nothing remains to undo then.
    if (s.core_.stopped.load(std::memory_order_relaxed)) return;
    s.core_.broker->unsubscribe(s.shard_core_.index, room, s.client_id_, std::move(leave_info));
  }
  void join_hub(const std::string& room) override {
    if (token) s.track_token_subscription(room, token);
    if (!flags.hears_join_leave) s.deaf_rooms_.insert(room);
    s.unfollow(room);  // in the hub once (room_list_follows.cpp)
    s.shard_core_.hub.join(room, &s);
    s.core_.gw.subscriptions->add(1);
    s.core_.census.subscribed(room);
    if (s.room_list_ && answer) {
      // Recovered publications are unread: counting starts before the
      // first of them. Otherwise it starts at the top the subscribe saw.
      std::optional<state::ReadMarker> read;
      if (answer->publications.empty()) read = state::ReadMarker{answer->epoch, answer->offset};
      s.room_list_->add_subscribed(room, std::move(read));
      const std::uint64_t now = unix_now_ms();
      for (const fanout::MessagePtr& p : answer->publications) s.room_list_->on_publication(p, now);
    }
  }
  void leave_hub(const std::string& room) override {
    s.server_side_rooms_.erase(room);
    s.deaf_rooms_.erase(room);
    s.track_token_subscription(room, std::nullopt);
    s.shard_core_.hub.leave(room, &s);
    s.core_.gw.subscriptions->sub(1);
    s.core_.census.unsubscribed(room);
    if (s.room_list_ && !s.finished_) {
      s.room_list_->remove_subscribed(room);
      // Still a membership: followed without the subscription.
      if (s.room_list_->is_member(room)) s.follow(room, [&c = s] { c.push_room_list(); });
    }
  }
  // Id 0 is a server-side subscription's: one of connect's (complete_connect)
  // goes into the connect reply instead of a reply of its own, one made
  // later (server_subscribe) is pushed.
  void reply_subscribed(std::uint32_t id, const std::string& room) override {
    if (!answer) return;
    if (id == 0 && !s.pending_connect_) {
      s.out_.push(room, fanout::make_message(protocol::encode_subscribe_push(
                            room, answer->epoch, answer->offset, data)));
      // Recovered from the API's recover_since: the gap, before anything
      // live (which reaches the client after this turn).
      if (answer->recovered) {
        for (const fanout::MessagePtr& p : answer->publications) s.out_.push(room, p);
      }
      return;
    }
    if (id == 0) {
      return s.server_side_subscription_done({room, *answer, std::string(data), {}, recovering});
    }
    s.reply(id, protocol::SubscribeReply{*answer, data, recovering,
                                         token ? token->expires : std::nullopt});
  }
  void reply_broker_error(std::uint32_t id, const std::string& room) override {
    if (answer && answer->error) {
      reply_error(id, room, answer->error->code, answer->error->message);
    }
  }
  void reply_unsubscribed(std::uint32_t id, const std::string& /*room*/) override {
    s.reply(id, protocol::UnsubscribeReply{});
  }
  void push_unsubscribed(std::uint32_t /*id*/, const std::string& room,
                         protocol::UnsubscribeCode code) override {
    s.out_.push(room, fanout::make_message(protocol::encode_unsubscribe_push(room, code)));
  }
  void reply_error(std::uint32_t id, const std::string& room, ErrorCode code,
                   std::string message) override {
    if (id != 0) return s.reply_error(id, code, message);
    if (!s.pending_connect_) {
      // A later server-side subscribe the client never asked for: nobody
      // to answer (105, already subscribed, is the common one).
      if (code != ErrorCode::already_subscribed) {
        log::info("server-side subscribe refused",
                  {{"client", s.client_id_}, {"room", room}, {"error", message}});
      }
      return;
    }
    s.server_side_subscription_done({room, std::nullopt, {}, {code, std::move(message)}, false});
  }

  Client& s;
  const protocol::SubscribeResult* answer;
  std::string_view data;  // the subscribe hook's data for the client, or empty
  bool recovering;        // the subscribe gave a position to recover from
  // Set when a subscription token granted the subscribe.
  std::optional<TokenGrant> token;
  SubscriptionFlags flags;  // the subscription's, made for the broker's answer
};

std::string Client::info_in(const std::string& room) const {
  auto chan = chan_infos_.find(room);
  return chan == chan_infos_.end() ? info_json_
                                   : protocol::with_chan_info(info_json_, chan->second);
}

void Client::subscribe_with_broker(const std::string& room, SubscriptionTable::Since since,
                                   SubscriptionFlags flags, std::string_view chan_info_json,
                                   std::string backend_data, std::optional<TokenGrant> grant) {
  if (chan_info_json.empty()) {
    chan_infos_.erase(room);
  } else {
    chan_infos_[room] = std::string(chan_info_json);
  }
  if (flags.announced) {
    announced_rooms_.insert(room);
  } else {
    announced_rooms_.erase(room);
  }
  const bool recovering = since.has_value();
  protocol::SubscribeRequest req{room,          std::move(since), client_id_,     user_,
                                 info_in(room), flags.listed,     flags.announced};
  core_.broker->subscribe(shard_core_.index, std::move(req),
                          [this, hold = hold(), room, data = std::move(backend_data), recovering,
                           grant, flags](const protocol::SubscribeResult& r) {
                            if (r.error) {
                              chan_infos_.erase(room);
                              announced_rooms_.erase(room);
                            }
                            SubscriptionEffects fx(*this, &r, data, recovering, grant, flags);
                            subscriptions_.answered(room, !r.error, fx);
                          });
}

void Client::proxy_subscribe(const std::string& room, SubscriptionTable::Since since,
                             SubscriptionFlags flags, const std::string& client_data) {
  std::string body =
      proxy::client_request_json(client_id_, user_, "room", room, client_data, meta_json_);
  backend(proxy::HookKind::subscribe)
      ->post(std::move(body), [this, weak = owner_, room, since = std::move(since),
                               flags](proxy::BackendAnswer answer) mutable {
        auto alive = weak.lock();
        if (!alive) return;
        on_subscribe_answer(room, std::move(since), flags, answer);
      });
}

void Client::on_subscribe_answer(const std::string& room, SubscriptionTable::Since since,
                                 SubscriptionFlags flags, proxy::BackendAnswer& answer) {
  // The table waits for this room's answer whatever happened meanwhile
  // (closed: it is orphaned), so every path below answers it once.
  if (finished_) {
    return refuse_subscription(room, {ErrorCode::unauthorized, "the connection closed"});
  }
  if (auto* result = std::get_if<proxy::ResultAnswer>(&answer)) {
    auto read = proxy::read_subscribe_result(result->json);
    if (auto* grant = std::get_if<proxy::SubscribeGrant>(&read)) {
      return subscribe_with_broker(room, std::move(since), flags, grant->info_json,
                                   std::move(grant->data_json));
    }
    count_bad_answer(proxy::HookKind::subscribe);
    const proxy::FailureAnswer bad{proxy::Failure::bad_answer, std::get<std::string>(read)};
    return refuse_subscription(
        room, {ErrorCode::backend_unavailable, proxy::describe_failure("subscribe", bad)});
  }
  if (auto* error = std::get_if<proxy::ErrorAnswer>(&answer)) {
    return refuse_subscription(room, {error->relayed_code(), error->message});
  }
  if (auto* bye = std::get_if<proxy::DisconnectAnswer>(&answer)) {
    refuse_subscription(room, {ErrorCode::unauthorized, bye->reason});
    return disconnect(bye->code, bye->reason, proxy::backend_disconnect_reconnects(bye->code));
  }
  const auto& failure = std::get<proxy::FailureAnswer>(answer);
  refuse_subscription(
      room, {ErrorCode::backend_unavailable, proxy::describe_failure("subscribe", failure)});
}

void Client::refuse_subscription(const std::string& room, protocol::BrokerError error) {
  protocol::SubscribeResult refused;
  refused.error = std::move(error);
  SubscriptionEffects fx(*this, &refused);
  subscriptions_.answered(room, false, fx);
}

void Client::run(std::uint32_t id, protocol::SubscribeCmd& cmd) {
  if (!cmd.token.empty()) return subscribe_with_token(id, cmd);
  if (auto refused = room_refusal(claims_, user_, cmd.room)) {
    return reply_error(id, refused->code, refused->message);
  }
  if (protocol::is_private_room(cmd.room)) {
    return reply_error(id, ErrorCode::permission_denied,
                       "room '" + cmd.room + "' is private: subscribe with a subscription token");
  }
  SubscriptionTable::Args args;
  args.data = std::move(cmd.data);
  args.join_leave = cmd.join_leave;
  subscribe_in_table(id, cmd, std::move(args));
}

void Client::subscribe_in_table(std::uint32_t id, protocol::SubscribeCmd& cmd,
                                SubscriptionTable::Args args) {
  SubscriptionEffects fx(*this);
  subscriptions_.subscribe(id, cmd.room, std::move(cmd.since), fx, std::move(args));
}

void Client::subscribe_server_side(const std::string& room, SubscriptionTable::Since from,
                                   SubscriptionTable::Args args) {
  server_side_rooms_.insert(room);  // until it is left (a refused one stays: it is harmless)
  SubscriptionEffects fx(*this);
  subscriptions_.subscribe(0, room, std::move(from), fx, std::move(args));
}

void Client::server_subscribe(const std::string& room, ServerSubscribe how) {
  if (state_kind_ != State::connected || pending_connect_) return;
  SubscriptionTable::Args args;
  args.chan_info_json = std::move(how.chan_info_json);
  args.server_data = std::move(how.data_json);
  args.expires = how.expires;
  args.override = how.override;
  subscribe_server_side(room, std::move(how.since), std::move(args));
}

void Client::server_unsubscribe(const std::string& room, protocol::UnsubscribeCode code) {
  if (!reading()) return;
  SubscriptionEffects fx(*this);
  subscriptions_.server_unsubscribe(0, room, code, fx);
}

void Client::run(std::uint32_t id, protocol::UnsubscribeCmd& cmd) {
  SubscriptionEffects fx(*this);
  subscriptions_.unsubscribe(id, cmd.room, fx);
}

bool Client::is_active_subscription(std::uint32_t id, const std::string& room) {
  if (!subscriptions_.is_active(room)) {
    reply_error(id, ErrorCode::not_subscribed, "not subscribed to '" + room + "'");
    return false;
  }
  return true;
}

void Client::finish() {
  if (finished_) return;
  finished_ = true;
  state_kind_ = State::closed;
  if (counted_) core_.census.disconnected(user_);
  connect_timer_.cancel();
  expiry_.cancel();
  subscription_expiry_timer_.cancel();
  lost_streams_timer_.cancel();
  unfollow_all();
  // Leave every subscribed room; a subscribe in flight is undone by its
  // answer (client/subscription_table.hpp).
  SubscriptionEffects fx(*this);
  subscriptions_.disconnect(fx);
}

}  // namespace herald::gateway::client
