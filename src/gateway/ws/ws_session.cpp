#include "gateway/ws/ws_session.hpp"

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/websocket/error.hpp>

#include <random>
#include <span>

#include "core/json.hpp"
#include "core/log.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/rooms/room_name.hpp"
#include "gateway/shard_pool.hpp"

namespace herald::gateway {
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace asio = boost::asio;
using protocol::DisconnectCode;
using protocol::ErrorCode;

namespace {

std::string random_client_id() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(16, '0');
  std::uint64_t v = rng();
  for (char& c : id) {
    c = kHex[v & 0xf];
    v >>= 4;
  }
  return id;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::uint64_t unix_now_ms() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

WsSession::WsSession(beast::tcp_stream&& stream, detail::ServerState& state, unsigned shard)
    : ws_(std::move(stream)),
      state_(state),
      shard_state_(*state.shards[shard]),
      shard_(shard),
      write_timer_(ws_.get_executor()),
      connect_timer_(ws_.get_executor()) {
  shard_state_.ws_sessions.insert(this);
  state_.gw.ws_connections->add(1);
  publish_tokens_ = state_.options.client.publish_rate;
  tokens_at_ns_ = steady_now_ns();
}

WsSession::~WsSession() {
  finish();
  shard_state_.ws_sessions.erase(this);
  state_.gw.ws_connections->sub(1);
  state_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void WsSession::start(const HttpRequest& request) {
  const ClientLimits& limits = state_.options.client;
  // The WebSocket layer has its own timeouts; the TCP stream's must not fire.
  beast::get_lowest_layer(ws_).expires_never();
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = limits.handshake_timeout;
  timeouts.idle_timeout = limits.idle_timeout;
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(beast::http::field::server, "herald"); }));
  ws_.read_message_max(limits.max_message_bytes);
  ws_.auto_fragment(false);
  ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
    if (ec) {
      log::debug("websocket handshake failed", {{"error", ec.message()}});
      return self->finish();
    }
    self->state_kind_ = State::awaiting_connect;
    self->connect_timer_.expires_after(self->state_.options.client.connect_timeout);
    self->connect_timer_.async_wait([weak = std::weak_ptr<WsSession>(self)](beast::error_code e) {
      auto s = weak.lock();
      if (!e && s && s->state_kind_ == State::awaiting_connect)
        s->disconnect(DisconnectCode::connect_timeout);
    });
    self->read();
  });
}

void WsSession::read() {
  ws_.async_read(read_buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    self->on_read(ec);
  });
}

void WsSession::on_read(beast::error_code ec) {
  if (ec) {
    // Closed by the peer, by us, by a timeout, or refused by Beast (a message
    // over read_message_max is answered with close code 1009 by Beast).
    if (ec != websocket::error::closed && ec != asio::error::operation_aborted)
      log::debug("websocket read ended", {{"client", client_id_}, {"error", ec.message()}});
    return finish();
  }
  if (state_kind_ == State::closing || state_kind_ == State::closed) return;
  if (!ws_.got_text()) {
    read_buffer_.consume(read_buffer_.size());
    disconnect(DisconnectCode::bad_request);
    read();
    return;
  }
  auto data = read_buffer_.cdata();
  // Safety: a flat_buffer's readable bytes are one contiguous char range.
  std::string_view frame(static_cast<const char*>(data.data()), data.size());
  protocol::for_each_line(frame, [this](std::string_view line) {
    if (state_kind_ != State::closing && state_kind_ != State::closed) handle_line(line);
  });
  read_buffer_.consume(read_buffer_.size());
  read();
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
  connect_timer_.cancel();
  state_kind_ = State::connected;
  client_id_ = random_client_id();
  info_json_ = protocol::encode_client_info(user_, client_id_);

  std::string result = "{\"client\":";
  json::append_string(result, client_id_);
  result += ",\"user\":";
  json::append_string(result, user_);
  result += ",\"version\":";
  json::append_string(result, HERALD_VERSION);
  if (claims_ && claims_->expires_at) {
    result += ",\"expires\":" + std::to_string(*claims_->expires_at);
    // Enforce the expiry while connected: the client must reconnect with a
    // fresh token.
    connect_timer_.expires_after(std::chrono::seconds(*claims_->expires_at - unix_now()));
    connect_timer_.async_wait([weak = weak_from_this()](beast::error_code e) {
      auto s = weak.lock();
      if (!e && s) s->disconnect(DisconnectCode::token_expired);
    });
  }
  result += '}';
  reply(id, result);
}

bool WsSession::check_room(std::uint32_t id, const std::string& room) {
  if (auto err = room_name_error(room)) {
    reply_error(id, ErrorCode::bad_room, *err);
    return false;
  }
  if (claims_ && !claims_->allows(room)) {
    reply_error(id, ErrorCode::permission_denied, "the token does not allow room '" + room + "'");
    return false;
  }
  return true;
}

// The SubscriptionTable decides; this carries its decisions out on the
// session. `answer` is the broker's answer being handled, when there is one.
struct WsSession::SubscriptionEffects final : SubscriptionTable::Effects {
  explicit SubscriptionEffects(WsSession& session, const SubscribeResult* broker_answer = nullptr)
      : s(session), answer(broker_answer) {}

  void broker_subscribe(std::uint32_t /*id*/, const std::string& room,
                        SubscriptionTable::Since since) override {
    SubscribeRequest req{room, std::move(since), s.client_id_, s.user_, s.info_json_};
    s.state_.broker->subscribe(s.shard_, std::move(req),
                               [self = s.shared_from_this(), room](const SubscribeResult& r) {
                                 SubscriptionEffects fx(*self, &r);
                                 self->subscriptions_.answered(room, !r.error, fx);
                               });
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
  void reply_subscribed(std::uint32_t id, const std::string& /*room*/) override {
    if (answer) s.reply(id, protocol::subscribe_result(*answer));
  }
  void reply_broker_error(std::uint32_t id, const std::string& /*room*/) override {
    if (answer && answer->error) s.reply_error(id, answer->error->code, answer->error->message);
  }
  void reply_unsubscribed(std::uint32_t id, const std::string& /*room*/) override {
    s.reply(id, "{}");
  }
  void reply_error(std::uint32_t id, ErrorCode code, std::string message) override {
    s.reply_error(id, code, message);
  }

  WsSession& s;
  const SubscribeResult* answer;
};

void WsSession::on_subscribe(std::uint32_t id, protocol::SubscribeCmd& cmd) {
  if (!check_room(id, cmd.room)) return;
  SubscriptionEffects fx(*this);
  subscriptions_.subscribe(id, cmd.room, std::move(cmd.since), fx);
}

void WsSession::on_unsubscribe(std::uint32_t id, protocol::UnsubscribeCmd& cmd) {
  SubscriptionEffects fx(*this);
  subscriptions_.unsubscribe(id, cmd.room, fx);
}

void WsSession::join_hub(const std::string& room) {
  shard_state_.rooms[room].push_back(this);
}

void WsSession::leave_hub(const std::string& room) {
  auto it = shard_state_.rooms.find(room);
  if (it == shard_state_.rooms.end()) return;
  std::erase(it->second, this);
  if (it->second.empty()) shard_state_.rooms.erase(it);
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

bool WsSession::take_publish_token() {
  const double rate = state_.options.client.publish_rate;
  const std::int64_t now = steady_now_ns();
  publish_tokens_ =
      std::min(rate, publish_tokens_ + rate * static_cast<double>(now - tokens_at_ns_) / 1e9);
  tokens_at_ns_ = now;
  if (publish_tokens_ < 1.0) return false;
  publish_tokens_ -= 1.0;
  return true;
}

void WsSession::on_publish(std::uint32_t id, protocol::PublishCmd& cmd) {
  if (!check_room(id, cmd.room)) return;
  const RoomOptions& opts = state_.options.room_options(cmd.room);
  if (!opts.publish) {
    return reply_error(
        id, ErrorCode::permission_denied,
        "clients may not publish in '" + cmd.room + "' (its namespace has publish = false)");
  }
  if (cmd.data.size() > opts.max_publication_bytes) {
    return reply_error(id, ErrorCode::limit_exceeded,
                       "publish.data is " + std::to_string(cmd.data.size()) +
                           " bytes; max_publication_bytes is " +
                           std::to_string(opts.max_publication_bytes));
  }
  if (!take_publish_token()) {
    return reply_error(
        id, ErrorCode::too_many_requests,
        "over client.publish_rate (" + std::to_string(state_.options.client.publish_rate) + "/s)");
  }
  PublishRequest req{std::move(cmd.room), std::move(cmd.data), info_json_};
  state_.broker->publish(shard_, std::move(req), [self = shared_from_this(), id](PublishResult r) {
    if (self->finished_) return;
    if (r.error) return self->reply_error(id, r.error->code, r.error->message);
    self->reply(id, protocol::publish_result(r));
  });
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

void WsSession::reply(std::uint32_t id, std::string_view result_json) {
  enqueue(make_frame(protocol::encode_result(id, result_json)));
}

void WsSession::reply_error(std::uint32_t id, ErrorCode code, std::string_view message) {
  enqueue(make_frame(protocol::encode_error(id, code, message)));
}

void WsSession::enqueue(const FramePtr& frame) {
  if (state_kind_ == State::closing || state_kind_ == State::closed) return;
  const auto size = static_cast<std::int64_t>(frame->text.size() + 1);
  if (backlog_bytes_ + size > static_cast<std::int64_t>(state_.options.client.max_queue_bytes)) {
    // A slow consumer: drop what it has not taken and close it, telling it
    // to reconnect and recover from its last offset. Never blocks the
    // publisher or the other subscribers of this shard.
    state_.gw.slow_consumers->inc();
    log::info("slow consumer disconnected",
              {{"client", client_id_}, {"user", user_}, {"backlog_bytes", backlog_bytes_}});
    return close_now(DisconnectCode::slow_consumer);
  }
  append_to_queue(frame);
  schedule_flush();
}

void WsSession::append_to_queue(const FramePtr& frame) {
  queue_.push_back(frame);
  const auto size = static_cast<std::int64_t>(frame->text.size() + 1);
  backlog_bytes_ += size;
  shard_state_.queued_bytes.fetch_add(size, std::memory_order_relaxed);
}

void WsSession::deliver(const FramePtr& frame) {
  enqueue(frame);
  // published_ns marks publications (join/leave pushes carry 0).
  if (room_list_ && frame->published_ns != 0 && state_kind_ == State::connected) {
    room_list_->on_publication(frame, unix_now_ms());
  }
}

void WsSession::schedule_flush() {
  if (writing_ || flush_scheduled_) return;
  flush_scheduled_ = true;
  if (state_.options.client.write_delay.count() > 0) {
    write_timer_.expires_after(state_.options.client.write_delay);
    write_timer_.async_wait(
        asio::bind_allocator(HandlerAllocator<int>(write_memory_),
                             [self = shared_from_this()](beast::error_code) { self->flush(); }));
  } else {
    // Next loop turn: everything enqueued by the handlers running now (a
    // burst of deliveries, several replies) goes out in one write.
    // To the shard's io_context executor, not the stream's type-erased one:
    // through any_io_executor a post allocates twice more (its function
    // wrapper and the operation) from asio's recycling cache.
    asio::post((*state_.pool)[shard_].ctx.get_executor(),
               asio::bind_allocator(HandlerAllocator<int>(write_memory_),
                                    [self = shared_from_this()] { self->flush(); }));
  }
}

void WsSession::flush() {
  flush_scheduled_ = false;
  if (writing_ || state_kind_ == State::closed) return;
  if (room_list_ && state_kind_ == State::connected) {
    // Everything the room list saw since the last flush, as one diff batch
    // after the publications that caused it.
    std::string diffs = room_list_->drain();
    if (!diffs.empty()) append_to_queue(make_frame(std::move(diffs)));
  }
  if (queue_.empty()) {
    if (close_after_flush_) close_now(*close_after_flush_);
    return;
  }
  // inflight_ is empty here (on_write cleared it): swapping hands the queued
  // frames over and leaves queue_ with inflight_'s capacity, so a steady
  // flow allocates no queue storage.
  inflight_.swap(queue_);
  inflight_buffers_.clear();
  inflight_buffers_.reserve(inflight_.size() * 2);
  static constexpr char kNewline = '\n';
  for (std::size_t i = 0; i < inflight_.size(); ++i) {
    if (i) inflight_buffers_.emplace_back(&kNewline, 1);
    inflight_buffers_.emplace_back(inflight_[i]->text.data(), inflight_[i]->text.size());
  }
  writing_ = true;
  ws_.text(true);
  // A span, not the vector: Beast copies the buffer sequence into each layer
  // of its write operation, and a vector copy allocates (about 20 heap
  // allocations per write, pinned by gateway_fanout_test); inflight_buffers_
  // outlives the write.
  ws_.async_write(
      std::span<const asio::const_buffer>(inflight_buffers_),
      asio::bind_allocator(HandlerAllocator<int>(write_memory_),
                           [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                             self->on_write(ec, bytes);
                           }));
}

void WsSession::on_write(beast::error_code ec, std::size_t bytes) {
  writing_ = false;
  std::int64_t done_bytes = 0;
  std::int64_t oldest_pub = 0;
  for (const auto& f : inflight_) {
    done_bytes += static_cast<std::int64_t>(f->text.size() + 1);
    if (f->published_ns != 0 && (oldest_pub == 0 || f->published_ns < oldest_pub))
      oldest_pub = f->published_ns;
  }
  backlog_bytes_ -= done_bytes;
  shard_state_.queued_bytes.fetch_sub(done_bytes, std::memory_order_relaxed);
  if (ec) {
    inflight_.clear();
    return finish();
  }
  state_.gw.messages_out->inc(inflight_.size());
  state_.gw.bytes_out->inc(bytes);
  state_.gw.write_batches->inc();
  if (oldest_pub != 0) {
    state_.gw.publish_to_write->observe(static_cast<double>(steady_now_ns() - oldest_pub) / 1e9);
  }
  inflight_.clear();
  if (!queue_.empty()) return flush();
  if (close_after_flush_) close_now(*close_after_flush_);
}

void WsSession::disconnect(DisconnectCode code) {
  if (state_kind_ == State::closing || state_kind_ == State::closed || close_after_flush_) return;
  // The push goes out with whatever is queued, then the close frame.
  enqueue(make_frame(protocol::encode_disconnect(code)));
  close_after_flush_ = code;
  state_kind_ = State::closing;
  schedule_flush();
}

void WsSession::close_now(DisconnectCode code) {
  if (state_kind_ == State::closed) return;
  state_kind_ = State::closing;
  close_after_flush_ = code;
  if (!queue_.empty()) {
    std::int64_t dropped = 0;
    for (const auto& f : queue_) dropped += static_cast<std::int64_t>(f->text.size() + 1);
    queue_.clear();
    backlog_bytes_ -= dropped;
    shard_state_.queued_bytes.fetch_sub(dropped, std::memory_order_relaxed);
  }
  if (writing_) return;  // on_write comes back here once the socket is free
  state_kind_ = State::closed;
  const auto raw = static_cast<std::uint16_t>(code);
  // close_code has a fixed uint16 underlying type, so any code converts.
  ws_.async_close(websocket::close_reason(static_cast<websocket::close_code>(raw),
                                          protocol::disconnect_reason(code)),
                  [self = shared_from_this()](beast::error_code) {
                    // The pending read completes with `closed` (or times
                    // out) and calls finish().
                    beast::error_code ignored;
                    beast::get_lowest_layer(self->ws_).socket().shutdown(
                        asio::ip::tcp::socket::shutdown_both, ignored);
                    beast::get_lowest_layer(self->ws_).socket().close(ignored);
                  });
}

void WsSession::finish() {
  if (finished_) return;
  finished_ = true;
  state_kind_ = State::closed;
  connect_timer_.cancel();
  write_timer_.cancel();
  // Leave every subscribed room; a subscribe in flight is undone by its
  // answer (ws/subscription_table.hpp).
  SubscriptionEffects fx(*this);
  subscriptions_.disconnect(fx);
  if (!queue_.empty() || !inflight_.empty()) {
    // inflight_ is owned by a write that will still complete; only the
    // queue is released here.
    std::int64_t dropped = 0;
    for (const auto& f : queue_) dropped += static_cast<std::int64_t>(f->text.size() + 1);
    queue_.clear();
    backlog_bytes_ -= dropped;
    shard_state_.queued_bytes.fetch_sub(dropped, std::memory_order_relaxed);
  }
}

}  // namespace herald::gateway
