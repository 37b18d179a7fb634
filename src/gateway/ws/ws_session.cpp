#include "gateway/ws/ws_session.hpp"

#include <boost/asio/bind_allocator.hpp>
#include <boost/beast/websocket/error.hpp>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <random>

#include "core/json.hpp"
#include "core/log.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/rooms/room_name.hpp"
#include "gateway/shard_pool.hpp"
#include "gateway/ws/frame_header.hpp"

namespace herald::gateway {
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace asio = boost::asio;
using protocol::DisconnectCode;
using protocol::ErrorCode;

namespace {

// Read buffer: starts small (most clients send little: 10,000 idle
// subscribers hold 10,000 of these), doubles while reads fill it (up to
// kBusyReadBytes), and grows to fit the frame being read, which the frame
// reader bounds at client.max_message_bytes. A busy publisher must get its
// whole backlog in one read: its publications then reach the hub in one
// loop turn and leave in one write per subscriber (with 512 bytes a window
// of 8 publications was read 3 at a time, and each subscriber got 3 writes).
constexpr std::size_t kInitialReadBytes = 512;
constexpr std::size_t kBusyReadBytes = 64 * 1024;
// iovecs per sendmsg: a message of up to ~127 frames per call (header,
// then a text and a separator each); more continue in the next call.
constexpr std::size_t kMaxIovecs = 256;
constexpr std::uint16_t kCloseNormal = 1000;
constexpr std::uint16_t kCloseNoStatus = 1005;

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
    : handshake_(std::make_unique<websocket::stream<beast::tcp_stream>>(std::move(stream))),
      socket_(handshake_->get_executor()),
      state_(state),
      shard_state_(*state.shards[shard]),
      shard_(shard),
      reader_(state.options.client.max_message_bytes),
      idle_timer_(handshake_->get_executor()),
      out_(state.shards[shard]->queued_bytes),
      connect_timer_(handshake_->get_executor()) {
  shard_state_.ws_sessions.insert(this);
  state_.gw.ws_connections->add(1);
  publish_tokens_ = state_.options.client.publish_rate;
  tokens_at_ns_ = steady_now_ns();
}

WsSession::~WsSession() {
  finish();
  shard_state_.cork.cancel(cork_slot_);
  shard_state_.ws_sessions.erase(this);
  state_.gw.ws_connections->sub(1);
  state_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void WsSession::start(const HttpRequest& request) {
  const ClientLimits& limits = state_.options.client;
  // Beast's handshake has its own timeout; the TCP stream's must not fire.
  beast::get_lowest_layer(*handshake_).expires_never();
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = limits.handshake_timeout;
  timeouts.idle_timeout = websocket::stream_base::none();
  timeouts.keep_alive_pings = false;
  handshake_->set_option(timeouts);
  handshake_->set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(beast::http::field::server, "herald"); }));
  handshake_->async_accept(
      request, [self = shared_from_this()](beast::error_code ec) { self->on_handshake(ec); });
}

void WsSession::on_handshake(beast::error_code ec) {
  if (ec) {
    log::debug("websocket handshake failed", {{"error", ec.message()}});
    handshake_.reset();
    return finish();
  }
  // The 101 is written: from here on the socket and its framing are ours.
  // Nothing was read past the request (Beast's accept with a request reads
  // nothing), so no bytes are left behind in the stream.
  socket_ = handshake_->next_layer().release_socket();
  handshake_.reset();
  beast::error_code ignored;
  socket_.non_blocking(true, ignored);
  state_kind_ = State::awaiting_connect;
  connect_timer_.expires_after(state_.options.client.connect_timeout);
  connect_timer_.async_wait([weak = weak_from_this()](beast::error_code e) {
    auto s = weak.lock();
    if (!e && s && s->state_kind_ == State::awaiting_connect)
      s->disconnect(DisconnectCode::connect_timeout);
  });
  // Keep-alive: ping a silent client at half the idle timeout, close it
  // when the other half passes in silence too.
  idle_timer_.expires_after(state_.options.client.idle_timeout / 2);
  idle_timer_.async_wait([weak = weak_from_this()](beast::error_code e) {
    auto s = weak.lock();
    if (!e && s) s->on_idle_tick();
  });
  in_.resize(kInitialReadBytes);
  read();
}

void WsSession::on_idle_tick() {
  if (finished_) return;
  if (heard_) {
    heard_ = false;
    ping_sent_ = false;
  } else if (!ping_sent_ && !close_queued_) {
    ping_sent_ = true;
    out_.push_control(ws::control_frame(ws::Opcode::ping, {}));
    schedule_flush();
  } else {
    log::debug("websocket idle timeout", {{"client", client_id_}});
    return close_socket();
  }
  idle_timer_.expires_after(state_.options.client.idle_timeout / 2);
  idle_timer_.async_wait([weak = weak_from_this()](beast::error_code e) {
    auto s = weak.lock();
    if (!e && s) s->on_idle_tick();
  });
}

void WsSession::read() {
  if (in_.size() - in_size_ < kInitialReadBytes / 2) in_.resize(in_.size() * 2);
  socket_.async_read_some(
      asio::buffer(in_.data() + in_size_, in_.size() - in_size_),
      asio::bind_allocator(HandlerAllocator<int>(read_memory_),
                           [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                             self->on_read(ec, n);
                           }));
}

void WsSession::on_read(beast::error_code ec, std::size_t bytes) {
  if (ec) {
    // Closed by the peer (EOF without a close frame), by us, or reset.
    if (ec != asio::error::eof && ec != asio::error::operation_aborted)
      log::debug("websocket read ended", {{"client", client_id_}, {"error", ec.message()}});
    close_socket();
    return finish();
  }
  heard_ = true;
  const bool filled = in_size_ + bytes == in_.size();
  in_size_ += bytes;
  std::size_t pos = 0;
  bool reading = true;
  while (reading) {
    const ws::ReadResult r = reader_.next(std::span<char>(in_.data() + pos, in_size_ - pos));
    if (r.event == ws::ReadEvent::need_more) break;
    pos += r.consumed;
    reading = on_frame(r);
  }
  if (!reading) {
    // A close was received or the input refused: nothing more is read. The
    // socket closes when our close frame is out (perhaps already).
    reader_stopped_ = true;
    if (!socket_.is_open()) finish();
    return;
  }
  // Keep the unparsed tail at the front, and make room for all of a large
  // frame at once (its size is known from its header).
  std::copy(in_.begin() + static_cast<std::ptrdiff_t>(pos),
            in_.begin() + static_cast<std::ptrdiff_t>(in_size_), in_.begin());
  in_size_ -= pos;
  const std::size_t need = ws::FrameReader::frame_size(std::span<const char>(in_.data(), in_size_));
  if (need > in_.size()) in_.resize(need);
  if (filled && in_.size() < kBusyReadBytes) in_.resize(in_.size() * 2);
  read();
}

bool WsSession::on_frame(const ws::ReadResult& r) {
  switch (r.event) {
    case ws::ReadEvent::text:
      if (state_kind_ == State::closing || state_kind_ == State::closed) return true;
      protocol::for_each_line(r.payload, [this](std::string_view line) {
        if (state_kind_ != State::closing && state_kind_ != State::closed) handle_line(line);
      });
      return true;
    case ws::ReadEvent::binary:
      if (state_kind_ != State::closing && state_kind_ != State::closed) {
        disconnect(DisconnectCode::bad_request);
      }
      return true;
    case ws::ReadEvent::ping:
      if (close_frame_) return true;  // closing: no more frames but our close
      if (out_.control_bytes() + r.payload.size() > state_.options.client.max_queue_bytes) {
        // Pings sent faster than their pongs are read: a slow consumer too
        // (the pongs would otherwise pile up without bound).
        state_.gw.slow_consumers->inc();
        close_now(DisconnectCode::slow_consumer);
        return true;
      }
      out_.push_control(ws::control_frame(ws::Opcode::pong, r.payload));
      schedule_flush();
      return true;
    case ws::ReadEvent::pong:
    case ws::ReadEvent::fragment:
    case ws::ReadEvent::need_more:
      return true;
    case ws::ReadEvent::close:
      close_received_ = true;
      if (close_written_) {
        close_socket();  // the handshake is complete
      } else if (!close_queued_) {
        // Echo the peer's code (RFC 6455 5.5.1); what was queued is dropped:
        // the peer will not read it.
        state_kind_ = State::closing;
        out_.drop_queued();
        send_close(r.close_code == kCloseNoStatus ? kCloseNormal : r.close_code, {});
      }
      return false;
    case ws::ReadEvent::error:
      log::debug("websocket protocol error", {{"client", client_id_}, {"error", r.payload}});
      state_kind_ = State::closing;
      out_.drop_queued();
      if (!close_queued_) send_close(r.close_code, r.payload);
      return false;
  }
  return true;
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
  enqueue(make_frame(protocol::encode_result(id, result_json)), true);
}

void WsSession::reply_error(std::uint32_t id, ErrorCode code, std::string_view message) {
  enqueue(make_frame(protocol::encode_error(id, code, message)), true);
}

void WsSession::enqueue(const FramePtr& frame, bool replied) {
  if (state_kind_ == State::closing || state_kind_ == State::closed) return;
  if (out_.backlog_bytes() + ws::OutboundQueue::weight(*frame) >
      static_cast<std::int64_t>(state_.options.client.max_queue_bytes)) {
    // A slow consumer: drop what it has not taken and close it, telling it
    // to reconnect and recover from its last offset. Never blocks the
    // publisher or the other subscribers of this shard, and never leaves
    // the hub here (the hub may be iterating: hub.hpp).
    state_.gw.slow_consumers->inc();
    log::info("slow consumer disconnected",
              {{"client", client_id_}, {"user", user_}, {"backlog_bytes", out_.backlog_bytes()}});
    return close_now(DisconnectCode::slow_consumer);
  }
  out_.push(frame);
  schedule_flush(replied);
}

void WsSession::deliver(const FramePtr& frame) {
  enqueue(frame);
  // published_ns marks publications (join/leave pushes carry 0).
  if (room_list_ && frame->published_ns != 0 && state_kind_ == State::connected) {
    room_list_->on_publication(frame, unix_now_ms());
  }
}

void WsSession::schedule_flush(bool replied) {
  if (finished_) return;
  if (cork_slot_ != 0) {
    if (!replied || WriteCork::is_replied(cork_slot_)) return;
    shard_state_.cork.cancel(cork_slot_);  // moves up to the replied-to list
  }
  cork_slot_ = shard_state_.cork.add(this, replied);
}

void WsSession::corked_flush() {
  cork_slot_ = 0;
  flush();
}

void WsSession::flush() {
  if (finished_ || state_kind_ == State::handshake) return;
  if (room_list_ && state_kind_ == State::connected) {
    // Everything the room list saw since the last flush, as one diff batch
    // after the publications that caused it.
    std::string diffs = room_list_->drain();
    if (!diffs.empty()) out_.push(make_frame(std::move(diffs)));
  }
  if (!waiting_writable_) write_now();
}

void WsSession::write_now() {
  std::array<iovec, kMaxIovecs> iov{};
  for (;;) {
    const std::size_t n = out_.gather(iov);
    if (n == 0) {
      if (close_frame_ && !close_queued_) {
        // Data done: our close frame goes last.
        out_.push_control(ws::close_frame(close_frame_->first, close_frame_->second));
        close_queued_ = true;
        continue;
      }
      if (close_queued_ && !close_written_) on_close_written();
      return;
    }
    std::size_t offered = 0;
    for (std::size_t i = 0; i < n; ++i) offered += iov[i].iov_len;
    msghdr msg{};
    msg.msg_iov = iov.data();
    msg.msg_iovlen = n;
    const ssize_t sent = ::sendmsg(socket_.native_handle(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      log::debug("websocket write failed",
                 {{"client", client_id_}, {"error", std::generic_category().message(errno)}});
      close_socket();
      return finish();
    }
    // Safety: sendmsg returned a byte count, not an error, so it is >= 0.
    const auto written = static_cast<std::size_t>(sent);
    const ws::OutboundQueue::Written w = out_.consume(written);
    state_.gw.write_batches->inc();
    state_.gw.bytes_out->inc(written);
    if (w.frames != 0) state_.gw.messages_out->inc(w.frames);
    if (w.oldest_published != 0) {
      state_.gw.publish_to_write->observe(
          static_cast<double>(steady_now_ns() - w.oldest_published) / 1e9);
    }
    if (written < offered) break;  // the kernel is full: wait rather than ask again
  }
  // What is left waits until the socket can take more.
  waiting_writable_ = true;
  socket_.async_wait(asio::socket_base::wait_write,
                     asio::bind_allocator(HandlerAllocator<int>(write_memory_),
                                          [self = shared_from_this()](beast::error_code ec) {
                                            self->on_writable(ec);
                                          }));
}

void WsSession::on_writable(beast::error_code ec) {
  waiting_writable_ = false;
  if (ec || finished_) return;  // the read side sees the error and finishes
  flush();
}

void WsSession::send_close(std::uint16_t code, std::string_view reason) {
  if (close_frame_) return;
  close_frame_.emplace(code, std::string(reason));
  // Written now, not at the cork's drain: the read loop may have stopped,
  // and then nothing else holds the session until the write is done.
  if (!waiting_writable_) write_now();
}

void WsSession::on_close_written() {
  close_written_ = true;
  if (close_received_ || reader_stopped_) return close_socket();
  // Wait for the peer's close frame (the read loop goes on), a bounded time.
  idle_timer_.expires_after(state_.options.client.handshake_timeout);
  idle_timer_.async_wait([weak = weak_from_this()](beast::error_code e) {
    auto s = weak.lock();
    if (!e && s) s->close_socket();
  });
}

void WsSession::disconnect(DisconnectCode code) {
  if (state_kind_ == State::closing || state_kind_ == State::closed || close_after_flush_) return;
  // The push goes out with whatever is queued, then the close frame.
  enqueue(make_frame(protocol::encode_disconnect(code)));
  close_after_flush_ = code;
  state_kind_ = State::closing;
  close_frame_.emplace(static_cast<std::uint16_t>(code),
                       std::string(protocol::disconnect_reason(code)));
  schedule_flush();
}

void WsSession::close_now(DisconnectCode code) {
  if (state_kind_ == State::closed || close_frame_) return;
  state_kind_ = State::closing;
  close_after_flush_ = code;
  // The rest of a message already started still goes out (the stream would
  // be corrupt otherwise); nothing queued after it does.
  out_.drop_queued();
  close_frame_.emplace(static_cast<std::uint16_t>(code),
                       std::string(protocol::disconnect_reason(code)));
  schedule_flush();
}

void WsSession::close_socket() {
  if (!socket_.is_open()) return;
  beast::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);  // a pending read completes and calls finish()
  idle_timer_.cancel();
  if (reader_stopped_) finish();
}

void WsSession::finish() {
  if (finished_) return;
  finished_ = true;
  state_kind_ = State::closed;
  connect_timer_.cancel();
  idle_timer_.cancel();
  // Leave every subscribed room; a subscribe in flight is undone by its
  // answer (ws/subscription_table.hpp).
  SubscriptionEffects fx(*this);
  subscriptions_.disconnect(fx);
  // Whatever was not written is dropped; the queue's destructor settles
  // the shard's byte gauge.
  out_.drop_queued();
}

}  // namespace herald::gateway
