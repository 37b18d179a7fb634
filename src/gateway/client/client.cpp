#include "gateway/client/client.hpp"

#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "core/time/steady_clock.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client/publish_checks.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/room_name.hpp"

namespace herald::gateway::client {
using protocol::DisconnectCode;
using protocol::ErrorCode;

Client::Client(CoreContext& core, ShardCore& shard, const boost::asio::any_io_executor& executor,
               Output& out, Setup setup)
    : core_(core),
      shard_core_(shard),
      out_(out),
      setup_(std::move(setup)),
      connect_timer_(executor),
      expiry_(executor,
              setup_.asks_hooks ? shard_core_.backends[proxy::HookKind::refresh].get() : nullptr,
              setup_.asks_hooks ? core.hooks[proxy::HookKind::refresh].get() : nullptr),
      subscriptions_(core.options.client.max_subscriptions,
                     core.options.client.max_pending_per_room, setup_.unsubscribe_absent),
      publish_rate_(core.options.client.publish_rate, core.options.client.publish_rate,
                    steady_now_ns()),
      command_rate_(core.options.client.command_rate, core.options.client.command_burst,
                    steady_now_ns()),
      subscription_expiry_timer_(executor),
      lost_streams_timer_(executor) {
  shard_core_.clients.insert(this);
}

Client::~Client() {
  finish();
  shard_core_.clients.erase(this);
}

void Client::start(std::weak_ptr<void> owner) {
  owner_ = std::move(owner);
  state_kind_ = State::awaiting_connect;
  connect_timer_.expires_after(core_.options.client.connect_timeout);
  connect_timer_.async_wait([this, weak = owner_](boost::system::error_code e) {
    auto alive = weak.lock();
    if (!e && alive && state_kind_ == State::awaiting_connect)
      disconnect(DisconnectCode::connect_timeout);
  });
}

proxy::BackendClient* Client::backend(proxy::HookKind hook) const {
  return setup_.asks_hooks ? shard_core_.backends[hook].get() : nullptr;
}

void Client::refuse(const protocol::CommandError& error) {
  core_.gw.commands->inc();
  core_.gw.command_errors->inc();
  if (error.id == 0) {
    log::debug("closing client on a malformed command",
               {{"client", client_id_}, {"error", error.message}});
    return disconnect(DisconnectCode::bad_request);
  }
  reply_error(error.id, error.code, error.message);
}

void Client::execute(protocol::Command& cmd) {
  core_.gw.commands->inc();
  const std::uint32_t id = cmd.id;
  if (auto* c = std::get_if<protocol::ConnectCmd>(&cmd.body)) return run(id, *c);
  if (state_kind_ != State::connected) {
    core_.gw.command_errors->inc();
    return reply_error(id, ErrorCode::unauthorized, "send connect first");
  }
  // publish has a rate of its own (publish.cpp); every other command counts
  // against client.command_rate.
  if (!std::holds_alternative<protocol::PublishCmd>(cmd.body) &&
      !within_rate(id, command_rate_, "client.command_rate")) {
    return;
  }
  std::visit([&](auto& body) { run(id, body); }, cmd.body);
}

void Client::run(std::uint32_t id, protocol::PingCmd& /*cmd*/) {
  reply(id, protocol::PingReply{});
}

bool Client::check_room(std::uint32_t id, const std::string& room) {
  if (auto refused = room_refusal(claims_, user_, room)) {
    reply_error(id, refused->code, refused->message);
    return false;
  }
  return check_private(id, room);
}

bool Client::check_private(std::uint32_t id, const std::string& room) {
  // Its subscription token is what lets a client in: without the room
  // subscribed there is none to show.
  if (!protocol::is_private_room(room) || subscriptions_.is_active(room)) return true;
  reply_error(id, ErrorCode::permission_denied,
              "room '" + room + "' is private: subscribe to it with a subscription token first");
  return false;
}

bool Client::within_rate(std::uint32_t id, limits::TokenBucket& bucket, std::string_view setting) {
  if (bucket.take(steady_now_ns())) return true;
  return refuse_over_rate(id, setting, bucket.rate(), bucket.burst());
}

bool Client::within_publish_rate(std::uint32_t id) {
  limits::UserRates* per_user = setup_.publish_rate_per_user;
  if (per_user == nullptr) return within_rate(id, publish_rate_, "client.publish_rate");
  if (per_user->take(user_, steady_now_ns())) return true;
  return refuse_over_rate(id, "client.publish_rate", per_user->rate(), per_user->burst());
}

bool Client::refuse_over_rate(std::uint32_t id, std::string_view setting, std::uint64_t rate,
                              std::uint64_t burst) {
  core_.gw.command_errors->inc();
  std::string message = "over ";
  message += setting;
  message += " (" + std::to_string(rate) + "/s, burst " + std::to_string(burst) + ")";
  reply_error(id, ErrorCode::too_many_requests, message);
  return false;
}

std::optional<protocol::BrokerError> Client::unasked_hook(proxy::HookKind hook,
                                                          const std::string& room) const {
  const RoomOptions& options = core_.options.room_options(room);
  const bool needed =
      hook == proxy::HookKind::subscribe ? options.subscribe_proxy : options.publish_proxy;
  if (!needed || setup_.asks_hooks) return std::nullopt;
  const std::string name(proxy::hook_name(hook));
  return protocol::BrokerError{ErrorCode::not_available,
                               "room '" + room + "' needs the " + name + " hook (" + name +
                                   "_proxy), which this transport does not ask: " + name +
                                   " over a WebSocket"};
}

void Client::reply(std::uint32_t id, const protocol::Reply& reply) {
  if (!reading()) return;
  out_.reply(id, reply);
}

void Client::reply_error(std::uint32_t id, ErrorCode code, std::string_view message) {
  if (!reading()) return;
  out_.reply_error(id, code, message);
}

void Client::before_write() {
  // Everything the room list saw since the last write, as one diff batch
  // after the publications that caused it.
  push_room_list();
}

void Client::deliver(const std::string& room, const fanout::MessagePtr& message) {
  if (!reading()) return;
  if (!follows_.empty() && deliver_to_follow(room, message)) return;
  if (!lost_rooms_.empty() && lost_rooms_.contains(room)) return;  // after a hole
  if (!deaf_rooms_.empty() && deaf_rooms_.contains(room) &&
      protocol::is_presence_push(message->text))
    return;
  out_.push(room, message);
  // published_ns marks publications (join/leave pushes carry 0).
  if (room_list_ && message->published_ns != 0 && state_kind_ == State::connected) {
    room_list_->on_publication(message, unix_now_ms());
  }
}

void Client::disconnect(DisconnectCode code) {
  // Safety: DisconnectCode's underlying type is std::uint16_t.
  disconnect(static_cast<std::uint16_t>(code), protocol::disconnect_reason(code),
             protocol::should_reconnect(code));
}

void Client::disconnect(std::uint16_t code, std::string_view reason, bool reconnect) {
  if (!reading()) return;
  state_kind_ = State::closing;
  out_.disconnect(code, reason, reconnect);
}

void Client::stream_lost(const std::string& room) {
  if (!reading()) return;
  // A follow's reset is no subscriber's hole: it is followed again below.
  const bool followed = !follows_.empty() && is_followed(room);
  if (!followed && (!setup_.resubscribes_lost_streams || server_side_rooms_.contains(room))) {
    return disconnect(DisconnectCode::stream_reset);
  }
  const bool first = lost_rooms_.empty();
  if (!lost_rooms_.emplace(room, followed).second || !first) return;  // handled on their way
  // Not here: leaving the room edits the hub (fanout/subscriber.hpp). On
  // the next turn, with every room lost until then.
  lost_streams_timer_.expires_after(std::chrono::seconds(0));
  lost_streams_timer_.async_wait([this, weak = owner_](boost::system::error_code ec) {
    auto alive = weak.lock();
    if (ec || !alive) return;
    std::unordered_map<std::string, bool> lost;
    lost.swap(lost_rooms_);
    for (const auto& [r, a_follow] : lost) {
      if (!a_follow) {
        server_unsubscribe(r, protocol::UnsubscribeCode::stream_lost);
      } else if (!finished_ && is_followed(r)) {  // still a follow, not subscribed since
        follow_again(r);
      }
    }
  });
}

void Client::close_slow_consumer(std::string_view what, std::int64_t backlog_bytes) {
  // Drop what it has not taken and close it, telling it to reconnect and
  // recover from its last offset. Never blocks the publisher or the other
  // subscribers of this shard, and never leaves the hub here (the hub may
  // be iterating: fanout/hub.hpp). A disconnect push that overflows the
  // queue ends here too. Called from inside the transport's Output call
  // that overflowed: nothing more reaches the transport from now (not
  // reading), and the close is posted.
  if (state_kind_ == State::closed || slow_consumer_) return;
  slow_consumer_ = true;
  core_.gw.slow_consumers->inc();
  log::info(
      "slow consumer disconnected",
      {{"client", client_id_}, {"user", user_}, {"owed", what}, {"backlog_bytes", backlog_bytes}});
  state_kind_ = State::closing;
  boost::asio::post(connect_timer_.get_executor(), [this, weak = owner_] {
    // The owner holds this client; gone, there is nothing left to close.
    if (auto alive = weak.lock(); alive && state_kind_ != State::closed) {
      out_.close_now(DisconnectCode::slow_consumer);
    }
  });
}

}  // namespace herald::gateway::client
