#include "gateway/ws/ws_session.hpp"

#include "core/json.hpp"
#include "core/log.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client_id.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/proxy/refresh_hook.hpp"
#include "gateway/proxy/room_hooks.hpp"
#include "gateway/publish_checks.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway {
namespace beast = boost::beast;
using protocol::DisconnectCode;
using protocol::ErrorCode;

namespace {

// A backend's error code, relayed as the reply's code.
ErrorCode backend_code(const proxy::ErrorAnswer& error) {
  // Safety: ErrorCode's underlying type is std::uint16_t; a backend's code
  // is 1000..65535, outside Herald's own (proxy/backend_answer.hpp).
  return static_cast<ErrorCode>(error.code);
}

std::string peer_address(const beast::tcp_stream& stream) {
  boost::system::error_code ec;
  auto endpoint = stream.socket().remote_endpoint(ec);
  return ec ? std::string() : endpoint.address().to_string();
}

}  // namespace

WsSession::WsSession(ClientStream&& stream, ConnectionsPerIp::Lease lease,
                     detail::ServerState& state, unsigned shard)
    : state_(state),
      shard_state_(*state.shards[shard]),
      shard_(shard),
      peer_(peer_address(tcp_layer(stream))),
      connect_timer_(tcp_layer(stream).get_executor()),
      expiry_(tcp_layer(stream).get_executor(),
              shard_state_.backends[proxy::HookKind::refresh].get(),
              state_.hooks[proxy::HookKind::refresh].get()),
      connection_(std::move(stream), state, *state.shards[shard], *this),
      publish_rate_(state.options.client.publish_rate, state.options.client.publish_rate,
                    steady_now_ns()),
      command_rate_(state.options.client.command_rate, state.options.client.command_burst,
                    steady_now_ns()),
      lease_(std::move(lease)) {
  shard_state_.ws_sessions.insert(this);
  state_.gw.ws_connections->add(1);
}

WsSession::~WsSession() {
  finish();
  shard_state_.ws_sessions.erase(this);
  state_.gw.ws_connections->sub(1);
  state_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void WsSession::start(const HttpRequest& request) {
  if (shard_state_.backends[proxy::HookKind::connect] ||
      shard_state_.backends[proxy::HookKind::refresh]) {
    forwarded_headers_ = proxy::forwarded_headers_json(request, state_.forward_headers, peer_);
  }
  connection_.start(request, weak_from_this());
}

void WsSession::on_open() {
  state_kind_ = State::awaiting_connect;
  connect_timer_.expires_after(state_.options.client.connect_timeout);
  connect_timer_.async_wait([weak = weak_from_this()](beast::error_code e) {
    auto s = weak.lock();
    if (!e && s && s->state_kind_ == State::awaiting_connect)
      s->disconnect(DisconnectCode::connect_timeout);
  });
}

void WsSession::on_text(std::string_view message) {
  protocol::for_each_line(message, [this](std::string_view line) {
    if (state_kind_ != State::closing && state_kind_ != State::closed) handle_line(line);
  });
}

void WsSession::on_binary() {
  if (state_kind_ != State::closing && state_kind_ != State::closed) {
    disconnect(DisconnectCode::bad_request);
  }
}

void WsSession::before_write() {
  if (room_list_ && state_kind_ == State::connected) {
    // Everything the room list saw since the last write, as one diff batch
    // after the publications that caused it.
    std::string diffs = room_list_->drain();
    if (!diffs.empty()) connection_.enqueue(make_frame(std::move(diffs)), false);
  }
}

void WsSession::on_overflow() {
  close_slow_consumer("pongs not read");
}

void WsSession::close_slow_consumer(std::string_view what) {
  // Drop what it has not taken and close it, telling it to reconnect and
  // recover from its last offset. Never blocks the publisher or the other
  // subscribers of this shard, and never leaves the hub here (the hub may
  // be iterating: hub.hpp).
  state_.gw.slow_consumers->inc();
  log::info("slow consumer disconnected", {{"client", client_id_},
                                           {"user", user_},
                                           {"owed", what},
                                           {"backlog_bytes", connection_.backlog_bytes()}});
  close_now(DisconnectCode::slow_consumer);
}

void WsSession::on_closed() {
  finish();
}

void WsSession::handle_line(std::string_view line) {
  state_.gw.commands->inc();
  protocol::ParseResult parsed = shard_state_.parser.parse(line);
  if (auto* err = std::get_if<protocol::CommandError>(&parsed)) {
    state_.gw.command_errors->inc();
    if (err->id == 0) {
      log::debug("closing client on a malformed command",
                 {{"client", client_id_}, {"error", err->message}});
      disconnect(DisconnectCode::bad_request);
      return;
    }
    reply_error(err->id, err->code, err->message);
    return;
  }
  handle(std::get<protocol::Command>(parsed));
}

void WsSession::handle(protocol::Command& cmd) {
  const std::uint32_t id = cmd.id;
  if (auto* c = std::get_if<protocol::ConnectCmd>(&cmd.body)) return on_connect(id, *c);
  if (state_kind_ != State::connected) {
    state_.gw.command_errors->inc();
    return reply_error(id, ErrorCode::unauthorized, "send connect first");
  }
  // publish has a rate of its own (on_publish); every other command counts
  // against client.command_rate.
  if (!std::holds_alternative<protocol::PublishCmd>(cmd.body) &&
      !within_rate(id, command_rate_, "client.command_rate")) {
    return;
  }
  std::visit(
      [&](auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, protocol::SubscribeCmd>) {
          on_subscribe(id, body);
        } else if constexpr (std::is_same_v<T, protocol::UnsubscribeCmd>) {
          on_unsubscribe(id, body);
        } else if constexpr (std::is_same_v<T, protocol::PublishCmd>) {
          on_publish(id, body);
        } else if constexpr (std::is_same_v<T, protocol::HistoryCmd>) {
          on_history(id, body);
        } else if constexpr (std::is_same_v<T, protocol::PresenceCmd>) {
          on_presence(id, body, false);
        } else if constexpr (std::is_same_v<T, protocol::PresenceStatsCmd>) {
          protocol::PresenceCmd p{body.room};
          on_presence(id, p, true);
        } else if constexpr (std::is_same_v<T, protocol::PingCmd>) {
          reply(id, "{}");
        } else if constexpr (std::is_same_v<T, protocol::RpcCmd>) {
          on_rpc(id, body);
        } else if constexpr (std::is_same_v<T, protocol::RoomsWatchCmd>) {
          on_rooms_watch(id, body);
        } else if constexpr (std::is_same_v<T, protocol::RoomsPageCmd>) {
          on_rooms_page(id, body);
        } else if constexpr (std::is_same_v<T, protocol::RoomsReadCmd>) {
          on_rooms_read(id, body);
        } else if constexpr (std::is_same_v<T, protocol::RoomsTagCmd>) {
          on_rooms_tag(id, body);
        }
      },
      cmd.body);
}

void WsSession::on_connect(std::uint32_t id, protocol::ConnectCmd& cmd) {
  if (state_kind_ == State::connected) {
    return reply_error(id, ErrorCode::already_connected, "this connection is connected already");
  }
  if (state_kind_ == State::connecting) {
    return reply_error(id, ErrorCode::already_connected,
                       "a connect is in progress (the backend is deciding)");
  }
  if (!cmd.token.empty()) {
    if (!state_.verifier) {
      reply_error(id, ErrorCode::unauthorized,
                  "this server has no token key (auth.hmac_secret or auth.rsa_public_key_file); "
                  "tokens cannot be verified");
      return disconnect(DisconnectCode::unauthorized);
    }
    auth::VerifyResult r = state_.verifier->verify(cmd.token, unix_now());
    if (auto* e = std::get_if<auth::TokenError>(&r)) {
      if (*e == auth::TokenError::expired) {
        reply_error(id, ErrorCode::token_expired, auth::describe(*e));
        return disconnect(DisconnectCode::token_expired);
      }
      reply_error(id, ErrorCode::unauthorized, auth::describe(*e));
      return disconnect(DisconnectCode::unauthorized);
    }
    claims_ = std::get<auth::Claims>(std::move(r));
    user_ = claims_->user;
  } else if (shard_state_.backends[proxy::HookKind::connect]) {
    return proxy_connect(id, cmd);
  } else if (state_.dev_mode) {
    if (cmd.user.empty() || cmd.user.size() > 64) {
      return reply_error(id, ErrorCode::bad_request,
                         "connect.user: dev mode needs a user name of 1 to 64 bytes");
    }
    user_ = cmd.user;
  } else {
    reply_error(id, ErrorCode::unauthorized, "connect.token is required");
    return disconnect(DisconnectCode::unauthorized);
  }
  client_id_ = random_client_id();
  info_json_ = protocol::encode_client_info(user_, client_id_);
  if (claims_) return complete_connect(id, claims_->expires_at, {}, claims_->subs, cmd.subs);
  complete_connect(id, std::nullopt, {}, {}, {});
}

void WsSession::proxy_connect(std::uint32_t id, protocol::ConnectCmd& cmd) {
  state_kind_ = State::connecting;
  client_id_ = random_client_id();
  std::string body = proxy::connect_request_json(client_id_, forwarded_headers_, cmd.data);
  shard_state_.backends[proxy::HookKind::connect]->post(
      std::move(body),
      [weak = weak_from_this(), id, since = std::move(cmd.subs)](proxy::BackendAnswer answer) {
        auto self = weak.lock();
        if (self && !self->finished_ && self->state_kind_ == State::connecting) {
          self->on_connect_answer(id, answer, since);
        }
      });
}

void WsSession::on_connect_answer(std::uint32_t id, proxy::BackendAnswer& answer,
                                  const protocol::RoomPositions& since) {
  auto* result = std::get_if<proxy::ResultAnswer>(&answer);
  if (!result) {
    // A refusal ends the attempt; the client may try again (a 116) within
    // client.connect_timeout, which still runs.
    state_kind_ = State::awaiting_connect;
    if (std::holds_alternative<proxy::ErrorAnswer>(answer)) {
      on_backend_refusal(id, "connect", answer);
      return disconnect(DisconnectCode::unauthorized);
    }
    return on_backend_refusal(id, "connect", answer);
  }
  auto read = proxy::read_connect_result(result->json);
  if (auto* wrong = std::get_if<std::string>(&read)) {
    state_kind_ = State::awaiting_connect;
    count_bad_answer(proxy::HookKind::connect);
    proxy::BackendAnswer bad = proxy::FailureAnswer{proxy::Failure::bad_answer, *wrong};
    return on_backend_refusal(id, "connect", bad);
  }
  auto& grant = std::get<proxy::ConnectGrant>(read);
  user_ = std::move(grant.user);
  info_json_ = protocol::encode_client_info(user_, client_id_, grant.info_json);
  complete_connect(id, grant.expire_at, grant.data_json, grant.rooms, since);
}

bool WsSession::check_room(std::uint32_t id, const std::string& room) {
  if (auto refused = room_refusal(claims_, room)) {
    reply_error(id, refused->code, refused->message);
    return false;
  }
  return true;
}

// The SubscriptionTable decides; this carries its decisions out on the
// session. `answer` is the broker's answer being handled, when there is one.
struct WsSession::SubscriptionEffects final : SubscriptionTable::Effects {
  explicit SubscriptionEffects(WsSession& session, const SubscribeResult* broker_answer = nullptr,
                               std::string_view backend_data = {})
      : s(session), answer(broker_answer), data(backend_data) {}

  // A namespace with subscribe_proxy asks the backend first; the table sees
  // the backend's decision and the broker's answer as one subscribe in
  // flight, so its ordering and limits hold unchanged. Server-side
  // subscriptions (id 0) were granted by the connect hook or the token.
  void broker_subscribe(std::uint32_t id, const std::string& room, SubscriptionTable::Since since,
                        std::string client_data) override {
    if (id != 0 && s.state_.options.room_options(room).subscribe_proxy) {
      return s.proxy_subscribe(room, std::move(since), client_data);
    }
    s.subscribe_with_broker(room, std::move(since), {}, {});
  }
  void broker_unsubscribe(const std::string& room) override {
    // After the server stopped its shards, the broker must not be called
    // (its io_contexts are being torn down); nothing remains to undo then.
    if (s.state_.stopped.load(std::memory_order_relaxed)) return;
    s.state_.broker->unsubscribe(s.shard_, room, s.client_id_);
  }
  void join_hub(const std::string& room) override {
    s.join_hub(room);
    s.state_.gw.subscriptions->add(1);
    if (s.room_list_ && answer) {
      s.room_list_->add_room(room);
      const std::uint64_t now = unix_now_ms();
      for (const FramePtr& p : answer->publications) s.room_list_->on_publication(p, now);
    }
  }
  void leave_hub(const std::string& room) override {
    s.leave_hub(room);
    s.state_.gw.subscriptions->sub(1);
    if (s.room_list_ && !s.finished_) s.room_list_->remove_room(room);
  }
  // Id 0 is a server-side subscription's (complete_connect): its answer
  // goes into the connect reply instead of a reply of its own.
  void reply_subscribed(std::uint32_t id, const std::string& room) override {
    if (!answer) return;
    std::string result = protocol::subscribe_result(*answer, data);
    if (id == 0) return s.server_side_subscription_done(room, result);
    s.reply(id, result);
  }
  void reply_broker_error(std::uint32_t id, const std::string& room) override {
    if (answer && answer->error) {
      reply_error(id, room, answer->error->code, answer->error->message);
    }
  }
  void reply_unsubscribed(std::uint32_t id, const std::string& /*room*/) override {
    s.reply(id, "{}");
  }
  void reply_error(std::uint32_t id, const std::string& room, ErrorCode code,
                   std::string message) override {
    if (id != 0) return s.reply_error(id, code, message);
    s.server_side_subscription_done(room, protocol::encode_error_object(code, message));
  }

  WsSession& s;
  const SubscribeResult* answer;
  std::string_view data;  // the subscribe hook's data for the client, or empty
};

void WsSession::subscribe_with_broker(const std::string& room, SubscriptionTable::Since since,
                                      std::string_view chan_info_json, std::string backend_data) {
  std::string info =
      chan_info_json.empty() ? info_json_ : protocol::with_chan_info(info_json_, chan_info_json);
  SubscribeRequest req{room, std::move(since), client_id_, user_, std::move(info)};
  state_.broker->subscribe(
      shard_, std::move(req),
      [self = shared_from_this(), room, data = std::move(backend_data)](const SubscribeResult& r) {
        SubscriptionEffects fx(*self, &r, data);
        self->subscriptions_.answered(room, !r.error, fx);
      });
}

void WsSession::proxy_subscribe(const std::string& room, SubscriptionTable::Since since,
                                const std::string& client_data) {
  std::string body = proxy::client_request_json(client_id_, user_, "room", room, client_data);
  shard_state_.backends[proxy::HookKind::subscribe]->post(
      std::move(body), [weak = weak_from_this(), room,
                        since = std::move(since)](proxy::BackendAnswer answer) mutable {
        auto self = weak.lock();
        if (!self) return;
        self->on_subscribe_answer(room, std::move(since), answer);
      });
}

void WsSession::on_subscribe_answer(const std::string& room, SubscriptionTable::Since since,
                                    proxy::BackendAnswer& answer) {
  // The table waits for this room's answer whatever happened meanwhile
  // (closed: it is orphaned), so every path below answers it once.
  if (finished_) {
    return refuse_subscription(room, {ErrorCode::unauthorized, "the connection closed"});
  }
  if (auto* result = std::get_if<proxy::ResultAnswer>(&answer)) {
    auto read = proxy::read_subscribe_result(result->json);
    if (auto* grant = std::get_if<proxy::SubscribeGrant>(&read)) {
      return subscribe_with_broker(room, std::move(since), grant->info_json,
                                   std::move(grant->data_json));
    }
    count_bad_answer(proxy::HookKind::subscribe);
    const proxy::FailureAnswer bad{proxy::Failure::bad_answer, std::get<std::string>(read)};
    return refuse_subscription(
        room, {ErrorCode::backend_unavailable, proxy::describe_failure("subscribe", bad)});
  }
  if (auto* error = std::get_if<proxy::ErrorAnswer>(&answer)) {
    return refuse_subscription(room, {backend_code(*error), error->message});
  }
  if (auto* bye = std::get_if<proxy::DisconnectAnswer>(&answer)) {
    refuse_subscription(room, {ErrorCode::unauthorized, bye->reason});
    return disconnect(bye->code, bye->reason, proxy::backend_disconnect_reconnects(bye->code));
  }
  const auto& failure = std::get<proxy::FailureAnswer>(answer);
  refuse_subscription(
      room, {ErrorCode::backend_unavailable, proxy::describe_failure("subscribe", failure)});
}

void WsSession::refuse_subscription(const std::string& room, BrokerError error) {
  SubscribeResult refused;
  refused.error = std::move(error);
  SubscriptionEffects fx(*this, &refused);
  subscriptions_.answered(room, false, fx);
}

void WsSession::complete_connect(std::uint32_t id, std::optional<std::int64_t> expires_at,
                                 std::string_view data_json, const std::vector<std::string>& rooms,
                                 const protocol::RoomPositions& since) {
  connect_timer_.cancel();
  state_kind_ = State::connected;

  std::string result;
  protocol::append_connection_identity(result, client_id_, user_);
  if (expires_at) {
    result += ",\"expires\":" + std::to_string(*expires_at);
    std::string refresh_request =
        shard_state_.backends[proxy::HookKind::refresh]
            ? proxy::refresh_request_json(client_id_, user_, forwarded_headers_)
            : std::string{};
    expiry_.arm(*expires_at, weak_from_this(), std::move(refresh_request),
                [this](std::optional<proxy::DisconnectAnswer> bye) {
                  if (finished_) return;
                  if (!bye) return disconnect(DisconnectCode::token_expired);
                  disconnect(bye->code, bye->reason,
                             proxy::backend_disconnect_reconnects(bye->code));
                });
  }
  if (!data_json.empty()) {
    result += ",\"data\":";
    result += data_json;
  }
  if (rooms.empty()) return reply(id, result + '}');
  // Server-side subscriptions: subscribed as a subscribe command would be
  // (id 0: answered into this reply, not on their own), the reply held
  // until every one has its broker's answer. `awaiting` counts one more
  // than the rooms until the loop ends, as a broker may answer at once.
  pending_connect_ = PendingConnectReply{id, std::move(result), {}, rooms.size() + 1};
  for (const std::string& room : rooms) {
    // A reconnecting client recovers where it stopped, as with since.
    SubscriptionTable::Since from;
    for (const auto& [r, position] : since) {
      if (r == room) from = position;
    }
    SubscriptionEffects fx(*this);
    subscriptions_.subscribe(0, room, std::move(from), fx);
  }
  server_side_subscription_done({}, {});
}

void WsSession::server_side_subscription_done(const std::string& room,
                                              std::string_view entry_json) {
  if (!pending_connect_) return;
  PendingConnectReply& p = *pending_connect_;
  if (!room.empty()) {
    if (!p.subs.empty()) p.subs += ',';
    json::append_string(p.subs, room);
    p.subs += ':';
    p.subs += entry_json;
  }
  if (--p.awaiting != 0) return;
  std::string reply_json = std::move(p.result) + ",\"subs\":{" + p.subs + "}}";
  const std::uint32_t id = p.id;
  pending_connect_.reset();
  reply(id, reply_json);
}

void WsSession::on_subscribe(std::uint32_t id, protocol::SubscribeCmd& cmd) {
  if (!check_room(id, cmd.room)) return;
  SubscriptionEffects fx(*this);
  subscriptions_.subscribe(id, cmd.room, std::move(cmd.since), fx, std::move(cmd.data));
}

void WsSession::on_unsubscribe(std::uint32_t id, protocol::UnsubscribeCmd& cmd) {
  SubscriptionEffects fx(*this);
  subscriptions_.unsubscribe(id, cmd.room, fx);
}

void WsSession::join_hub(const std::string& room) {
  shard_state_.hub.join(room, this);
}

void WsSession::leave_hub(const std::string& room) {
  shard_state_.hub.leave(room, this);
}

void WsSession::on_rooms_watch(std::uint32_t id, const protocol::RoomsWatchCmd& cmd) {
  if (!room_list_) {
    room_list_ = std::make_unique<RoomListFeed>(user_);
    subscriptions_.for_each_active([this](const std::string& room) { room_list_->add_room(room); });
  }
  room_list_->watch(cmd);
  reply(id, "{}");  // the Reset follows in the same flush
}

void WsSession::on_rooms_page(std::uint32_t id, const protocol::RoomsPageCmd& cmd) {
  if (!room_list_) {
    return reply_error(id, ErrorCode::bad_request, "rooms.page: send rooms.watch first");
  }
  if (cmd.more) {
    room_list_->page_more();
  } else {
    room_list_->page_reset();
  }
  reply(id, "{}");
}

bool WsSession::is_active_subscription(std::uint32_t id, const std::string& room) {
  if (!subscriptions_.is_active(room)) {
    reply_error(id, ErrorCode::not_subscribed, "not subscribed to '" + room + "'");
    return false;
  }
  return true;
}

void WsSession::on_rooms_read(std::uint32_t id, const protocol::RoomsReadCmd& cmd) {
  if (!is_active_subscription(id, cmd.room)) return;
  if (room_list_) room_list_->mark_read(cmd.room);
  reply(id, "{}");
}

void WsSession::on_rooms_tag(std::uint32_t id, const protocol::RoomsTagCmd& cmd) {
  if (!is_active_subscription(id, cmd.room)) return;
  if (room_list_) room_list_->set_tags(cmd.room, cmd.favourite, cmd.low_priority);
  reply(id, "{}");
}

bool WsSession::within_rate(std::uint32_t id, TokenBucket& bucket, std::string_view setting) {
  if (bucket.take(steady_now_ns())) return true;
  state_.gw.command_errors->inc();
  std::string message = "over ";
  message += setting;
  message +=
      " (" + std::to_string(bucket.rate()) + "/s, burst " + std::to_string(bucket.burst()) + ")";
  reply_error(id, ErrorCode::too_many_requests, message);
  return false;
}

void WsSession::on_publish(std::uint32_t id, protocol::PublishCmd& cmd) {
  if (auto refused = publish_refusal(state_.options, claims_, cmd.room, cmd.data.size())) {
    return reply_error(id, refused->code, refused->message);
  }
  if (!within_rate(id, publish_rate_, "client.publish_rate")) return;
  if (state_.options.room_options(cmd.room).publish_proxy) return proxy_publish(id, cmd);
  publish_to_broker(id, std::move(cmd.room), std::move(cmd.data));
}

void WsSession::publish_to_broker(std::uint32_t id, std::string room, std::string data,
                                  bool skip_history) {
  PublishRequest req{std::move(room), std::move(data), info_json_};
  req.skip_history = skip_history;
  state_.broker->publish(shard_, std::move(req), [self = shared_from_this(), id](PublishResult r) {
    if (self->finished_) return;
    if (r.error) return self->reply_error(id, r.error->code, r.error->message);
    self->reply(id, protocol::publish_result(r));
  });
}

void WsSession::proxy_publish(std::uint32_t id, protocol::PublishCmd& cmd) {
  std::string body = proxy::client_request_json(client_id_, user_, "room", cmd.room, cmd.data);
  const proxy::AnswersInOrder::Place place = publish_answers_.enter();
  shard_state_.backends[proxy::HookKind::publish]->post(
      std::move(body), [weak = weak_from_this(), id, place, room = std::move(cmd.room),
                        data = std::move(cmd.data)](proxy::BackendAnswer answer) mutable {
        auto self = weak.lock();
        if (!self) return;
        auto act = [self, id, room = std::move(room), data = std::move(data),
                    answer = std::make_shared<proxy::BackendAnswer>(std::move(answer))]() mutable {
          if (!self->finished_)
            self->on_publish_answer(id, std::move(room), std::move(data), *answer);
        };
        self->publish_answers_.arrive(place, std::move(act));
      });
}

void WsSession::on_publish_answer(std::uint32_t id, std::string room, std::string data,
                                  proxy::BackendAnswer& answer) {
  auto* result = std::get_if<proxy::ResultAnswer>(&answer);
  if (!result) return on_backend_refusal(id, "publish", answer);
  auto read = proxy::read_publish_result(result->json);
  if (auto* wrong = std::get_if<std::string>(&read)) {
    count_bad_answer(proxy::HookKind::publish);
    proxy::BackendAnswer bad = proxy::FailureAnswer{proxy::Failure::bad_answer, *wrong};
    return on_backend_refusal(id, "publish", bad);
  }
  auto& grant = std::get<proxy::PublishGrant>(read);
  if (grant.data_json) {
    // The namespace's limit holds for what is stored, whoever wrote it.
    const std::size_t max = state_.options.room_options(room).max_publication_bytes;
    if (grant.data_json->size() > max) {
      count_bad_answer(proxy::HookKind::publish);
      proxy::BackendAnswer bad =
          proxy::FailureAnswer{proxy::Failure::bad_answer,
                               "result.data is " + std::to_string(grant.data_json->size()) +
                                   " bytes; max_publication_bytes is " + std::to_string(max)};
      return on_backend_refusal(id, "publish", bad);
    }
    data = std::move(*grant.data_json);
  }
  publish_to_broker(id, std::move(room), std::move(data), grant.skip_history);
}

void WsSession::count_bad_answer(proxy::HookKind hook) {
  state_.hooks[hook]->error(proxy::Failure::bad_answer).inc();
}

void WsSession::on_history(std::uint32_t id, protocol::HistoryCmd& cmd) {
  if (!check_room(id, cmd.room)) return;
  if (state_.options.room_options(cmd.room).history_size == 0) {
    return reply_error(id, ErrorCode::not_available, "history is off for '" + cmd.room + "'");
  }
  HistoryRequest req{std::move(cmd.room), cmd.limit, std::move(cmd.since), cmd.reverse};
  state_.broker->history(shard_, std::move(req), [self = shared_from_this(), id](HistoryResult r) {
    if (self->finished_) return;
    if (r.error) return self->reply_error(id, r.error->code, r.error->message);
    self->reply(id, protocol::history_result(r));
  });
}

void WsSession::on_presence(std::uint32_t id, protocol::PresenceCmd& cmd, bool stats) {
  if (!check_room(id, cmd.room)) return;
  if (!state_.options.room_options(cmd.room).presence) {
    return reply_error(id, ErrorCode::not_available, "presence is off for '" + cmd.room + "'");
  }
  state_.broker->presence(
      shard_, std::move(cmd.room), [self = shared_from_this(), id, stats](PresenceResult r) {
        if (self->finished_) return;
        if (r.error) return self->reply_error(id, r.error->code, r.error->message);
        self->reply(id, stats ? protocol::presence_stats_result(r) : protocol::presence_result(r));
      });
}

void WsSession::on_rpc(std::uint32_t id, protocol::RpcCmd& cmd) {
  proxy::BackendClient* backend = shard_state_.backends[proxy::HookKind::rpc].get();
  if (!backend) {
    state_.gw.command_errors->inc();
    return reply_error(id, ErrorCode::not_available,
                       "rpc is off on this server (proxy.rpc_url is empty)");
  }
  std::string body = proxy::client_request_json(client_id_, user_, "method", cmd.method, cmd.data);
  backend->post(std::move(body), [weak = weak_from_this(), id](proxy::BackendAnswer answer) {
    auto self = weak.lock();
    if (self && !self->finished_) self->on_backend_answer(id, "rpc", answer);
  });
}

void WsSession::on_backend_answer(std::uint32_t id, std::string_view hook,
                                  proxy::BackendAnswer& answer) {
  if (auto* result = std::get_if<proxy::ResultAnswer>(&answer)) return reply(id, result->json);
  on_backend_refusal(id, hook, answer);
}

void WsSession::on_backend_refusal(std::uint32_t id, std::string_view hook,
                                   proxy::BackendAnswer& answer) {
  state_.gw.command_errors->inc();
  if (auto* error = std::get_if<proxy::ErrorAnswer>(&answer)) {
    return reply_error(id, backend_code(*error), error->message);
  }
  if (auto* bye = std::get_if<proxy::DisconnectAnswer>(&answer)) {
    return disconnect(bye->code, bye->reason, proxy::backend_disconnect_reconnects(bye->code));
  }
  const auto* failure = std::get_if<proxy::FailureAnswer>(&answer);
  if (!failure) return;  // a result is not a refusal
  reply_error(id, ErrorCode::backend_unavailable, proxy::describe_failure(hook, *failure));
}

void WsSession::reply(std::uint32_t id, std::string_view result_json) {
  enqueue(make_frame(protocol::encode_result(id, result_json)), true);
}

void WsSession::reply_error(std::uint32_t id, ErrorCode code, std::string_view message) {
  enqueue(make_frame(protocol::encode_error(id, code, message)), true);
}

void WsSession::enqueue(const FramePtr& frame, bool replied) {
  if (state_kind_ == State::closing || state_kind_ == State::closed) return;
  if (connection_.backlog_bytes() + ws::OutboundQueue::weight(*frame) >
      static_cast<std::int64_t>(state_.options.client.max_queue_bytes)) {
    return close_slow_consumer("pushes and replies");
  }
  connection_.enqueue(frame, replied);
}

void WsSession::deliver(const std::string& /*room*/, const FramePtr& frame) {
  enqueue(frame);
  // published_ns marks publications (join/leave pushes carry 0).
  if (room_list_ && frame->published_ns != 0 && state_kind_ == State::connected) {
    room_list_->on_publication(frame, unix_now_ms());
  }
}

void WsSession::disconnect(DisconnectCode code) {
  // Safety: DisconnectCode's underlying type is std::uint16_t.
  disconnect(static_cast<std::uint16_t>(code), protocol::disconnect_reason(code),
             protocol::should_reconnect(code));
}

void WsSession::disconnect(std::uint16_t code, std::string_view reason, bool reconnect) {
  if (state_kind_ == State::closing || state_kind_ == State::closed) return;
  // The push goes out with whatever is queued, then the close frame.
  enqueue(make_frame(protocol::encode_disconnect(code, reason, reconnect)));
  state_kind_ = State::closing;
  connection_.close_after_queue(code, reason);
}

void WsSession::close_now(DisconnectCode code) {
  if (state_kind_ == State::closing || state_kind_ == State::closed) return;
  state_kind_ = State::closing;
  connection_.close_dropping_queue(static_cast<std::uint16_t>(code),
                                   protocol::disconnect_reason(code));
}

void WsSession::finish() {
  if (finished_) return;
  finished_ = true;
  state_kind_ = State::closed;
  connect_timer_.cancel();
  expiry_.cancel();
  // Leave every subscribed room; a subscribe in flight is undone by its
  // answer (ws/subscription_table.hpp).
  SubscriptionEffects fx(*this);
  subscriptions_.disconnect(fx);
  connection_.release();
}

}  // namespace herald::gateway
