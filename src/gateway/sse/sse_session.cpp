#include "gateway/sse/sse_session.hpp"

#include <boost/asio/write.hpp>

#include "core/json.hpp"
#include "core/log.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client_id.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"
#include "gateway/sse/stream_id.hpp"

namespace herald::gateway::sse {
namespace asio = boost::asio;
using protocol::DisconnectCode;

namespace {

// The response head: an event stream that ends when the connection does
// (no length, no chunking: every SSE client reads to the close). no-cache
// and X-Accel-Buffering keep caches and buffering proxies from holding
// events back; nosniff as on every response.
std::string response_head(unsigned http_version) {
  std::string head = http_version == 10 ? "HTTP/1.0 200 OK\r\n" : "HTTP/1.1 200 OK\r\n";
  head +=
      "Server: herald\r\n"
      "Content-Type: text/event-stream; charset=utf-8\r\n"
      "Cache-Control: no-cache, no-store\r\n"
      "X-Accel-Buffering: no\r\n"
      "X-Content-Type-Options: nosniff\r\n"
      "Connection: close\r\n"
      "\r\n"
      ": ok\n\n";
  return head;
}

// A byte count as the signed totals the queue bound and the shard's gauge
// keep.
std::int64_t signed_bytes(std::size_t n) {
  // Safety: byte counts here are bounded by client.max_queue_bytes (at most
  // 1 GiB, options.cpp) plus one event, far below 2^63.
  return static_cast<std::int64_t>(n);
}

}  // namespace

SseSession::SseSession(ClientStream&& stream, ConnectionsPerIp::Lease lease,
                       detail::ServerState& state, unsigned shard, StreamRequest request)
    : state_(state),
      shard_state_(*state.shards[shard]),
      shard_(shard),
      stream_(std::move(stream)),
      heartbeat_(tcp_layer(stream_).get_executor()),
      expiry_(tcp_layer(stream_).get_executor()),
      lease_(std::move(lease)),
      max_queue_bytes_(signed_bytes(state.options.client.max_queue_bytes)),
      user_(std::move(request.identity.user)),
      client_id_(random_client_id()),
      info_json_(protocol::encode_client_info(user_, client_id_)),
      claims_(std::move(request.identity.claims)) {
  for (std::string& name : request.rooms) {
    Room room;
    room.name = std::move(name);
    for (auto& [r, position] : request.since) {
      if (r == room.name) room.since = std::move(position);
    }
    rooms_.push_back(std::move(room));
  }
  awaiting_ = rooms_.size();
  shard_state_.sse_streams.insert(this);
  state_.gw.sse_streams->add(1);
}

SseSession::~SseSession() {
  finish();
  shard_state_.sse_streams.erase(this);
  state_.gw.sse_streams->sub(1);
  state_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void SseSession::start(unsigned http_version) {
  state_.count_response(200);
  queue(response_head(http_version));
  read_some();
  arm_heartbeat();
  if (claims_) {
    if (auto wait = claims_->time_to_expiry(unix_now())) {
      expiry_.expires_after(*wait);
      expiry_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        auto self = weak.lock();
        if (!ec && self) self->disconnect(DisconnectCode::token_expired);
      });
    }
  }
  for (std::size_t i = 0; i < rooms_.size(); ++i) {
    if (state_.options.room_options(rooms_[i].name).subscribe_proxy) {
      // The subscribe hook decides for WebSocket clients only (its request
      // names a client's subscribe data); refused here rather than let in
      // unasked. Answered in place: the opening waits for every room.
      SubscribeResult refused;
      refused.error = BrokerError{protocol::ErrorCode::not_available,
                                  "room '" + rooms_[i].name +
                                      "' needs the subscribe hook (subscribe_proxy), which SSE "
                                      "streams do not ask"};
      on_subscribed(i, refused);
      continue;
    }
    SubscribeRequest req{rooms_[i].name, rooms_[i].since, client_id_, user_, info_json_};
    state_.broker->subscribe(
        shard_, std::move(req),
        [self = shared_from_this(), i](const SubscribeResult& r) { self->on_subscribed(i, r); });
  }
}

void SseSession::on_subscribed(std::size_t index, const SubscribeResult& result) {
  Room& room = rooms_[index];
  if (finished_) {
    // Closed while the broker was deciding: undo a subscription that took.
    if (!result.error && !state_.stopped.load(std::memory_order_relaxed)) {
      state_.broker->unsubscribe(shard_, room.name, client_id_);
    }
    return;
  }
  if (result.error) {
    room.state = RoomState::refused;
    room.error = result.error;
  } else {
    // The ordering contract: joined now, the result's publications are
    // before anything delivered from here on.
    room.state = RoomState::joined;
    room.recovered = result.recovered;
    room.top = result.offset;
    shard_state_.hub.join(room.name, this);
    state_.gw.subscriptions->add(1);
    // The position before the result's publications: where the client
    // stood when it recovered, else the stream's top (a fresh subscription
    // or a failed recovery carries none).
    room.position = result.recovered && room.since
                        ? *room.since
                        : protocol::StreamPosition{result.epoch, result.offset};
    for (const FramePtr& p : result.publications) deliver(room.name, p);
  }
  if (--awaiting_ == 0) open();
}

void SseSession::open() {
  opened_ = true;
  if (closing_) return;  // a disconnect is on its way out: nothing after it
  std::string data;
  protocol::append_connection_identity(data, client_id_, user_);
  data += '}';
  append_event("connected", data, true);
  for (const Room& room : rooms_) {
    data = "{\"room\":";
    json::append_string(data, room.name);
    if (room.state == RoomState::refused) {
      data += ',';
      data += std::string_view(protocol::encode_error_object(room.error->code, room.error->message))
                  .substr(1);
      append_event("refused", data, true);
      continue;
    }
    std::string position = ",\"epoch\":";
    json::append_string(position, room.position.epoch);
    position += ",\"offset\":" + std::to_string(room.top);
    if (room.since && !room.recovered) {
      append_event("recovery", data + ",\"recovered\":false" + position + '}', true);
    }
    data += position;
    data += room.recovered ? ",\"recovered\":true}" : ",\"recovered\":false}";
    append_event("subscribed", data, true);
  }
  std::vector<std::pair<std::size_t, FramePtr>> held;
  held.swap(held_);
  held_bytes_ = 0;
  for (const auto& [index, frame] : held) write_push(index, frame);
}

void SseSession::deliver(const std::string& room, const FramePtr& frame) {
  if (finished_ || closing_) return;
  const std::size_t index = room_index(room);
  if (index == rooms_.size()) return;
  if (!opened_) {
    const std::int64_t weight = signed_bytes(frame->text.size());
    if (backlog_bytes() + weight > max_queue_bytes_)
      return close_slow_consumer("pushes held before the stream opened");
    held_bytes_ += weight;
    held_.emplace_back(index, frame);
    return;
  }
  write_push(index, frame);
}

void SseSession::write_push(std::size_t index, const FramePtr& frame) {
  bool with_id = false;
  if (auto position = protocol::stream_position_in_push(frame->text)) {
    rooms_[index].position = std::move(*position);
    with_id = true;
  }
  append_event({}, frame->text, with_id);
}

void SseSession::append_event(std::string_view event, std::string_view data, bool with_id) {
  std::string out;
  out.reserve(data.size() + 64);
  if (with_id) {
    protocol::RoomPositions positions;
    for (const Room& room : rooms_) {
      if (room.state == RoomState::joined) {
        positions.emplace_back(room.name, room.position);
      } else if (room.since) {
        positions.emplace_back(room.name, *room.since);  // kept for the next try
      }
    }
    out += "id: ";
    out += format_stream_id(positions);
    out += '\n';
  }
  if (!event.empty()) {
    out += "event: ";
    out += event;
    out += '\n';
  }
  // One data line per line of the text (the frames are single lines; the
  // client joins data lines with '\n', so any text survives).
  for (;;) {
    const std::size_t nl = data.find('\n');
    out += "data: ";
    out += data.substr(0, nl);
    out += '\n';
    if (nl == std::string_view::npos) break;
    data.remove_prefix(nl + 1);
  }
  out += '\n';
  queue(out);
}

std::int64_t SseSession::backlog_bytes() const {
  return signed_bytes(pending_.size() + writing_.size()) + held_bytes_;
}

void SseSession::queue(std::string_view bytes) {
  if (finished_ || !socket().is_open()) return;  // closed: nothing more is written
  if (backlog_bytes() + signed_bytes(bytes.size()) > max_queue_bytes_) {
    return close_slow_consumer("events");
  }
  pending_ += bytes;
  shard_state_.queued_bytes.fetch_add(signed_bytes(bytes.size()), std::memory_order_relaxed);
  if (writing_.empty()) write_some();
}

std::size_t SseSession::room_index(const std::string& room) const {
  std::size_t i = 0;
  while (i < rooms_.size() && rooms_[i].name != room) ++i;
  return i;
}

void SseSession::write_some() {
  if (pending_.empty() || !socket().is_open()) return;
  writing_.swap(pending_);
  write_started_ns_ = steady_now_ns();
  wrote_since_tick_ = true;
  std::visit(
      [this](auto& s) {
        asio::async_write(s, asio::buffer(writing_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                            self->on_written(ec, n);
                          });
      },
      stream_);
}

void SseSession::on_written(boost::system::error_code ec, std::size_t bytes) {
  shard_state_.queued_bytes.fetch_sub(signed_bytes(writing_.size()), std::memory_order_relaxed);
  writing_.clear();
  if (ec) return close_socket();  // the read sees the close and finishes
  state_.gw.bytes_out->inc(bytes);
  state_.gw.write_batches->inc();
  if (!pending_.empty()) return write_some();
  if (closing_) close_socket();
}

void SseSession::read_some() {
  // The client sends nothing after its request; a read that ends is the
  // connection closing (by the client, or by us).
  std::visit(
      [this](auto& s) {
        s.async_read_some(asio::buffer(discard_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                            if (ec) {
                              self->close_socket();
                              return self->finish();
                            }
                            self->read_some();
                          });
      },
      stream_);
}

void SseSession::arm_heartbeat() {
  heartbeat_.expires_after(state_.options.client.sse_heartbeat);
  heartbeat_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!ec && self) self->on_heartbeat();
  });
}

void SseSession::on_heartbeat() {
  if (finished_) return;
  const auto stalled_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(state_.options.client.idle_timeout)
          .count();
  if (!writing_.empty() && steady_now_ns() - write_started_ns_ > stalled_ns) {
    log::info("sse stream closed: a write made no progress for client.idle_timeout",
              {{"client", client_id_}, {"user", user_}});
    close_socket();
    return finish();
  }
  if (!wrote_since_tick_ && !closing_) queue(":\n\n");
  wrote_since_tick_ = false;
  arm_heartbeat();
}

void SseSession::disconnect(DisconnectCode code) {
  if (finished_ || closing_) return;
  append_event({}, protocol::encode_disconnect(code), false);
  closing_ = true;
  if (writing_.empty() && pending_.empty()) close_socket();
}

void SseSession::close_slow_consumer(std::string_view why) {
  if (finished_) return;
  state_.gw.slow_consumers->inc();
  log::info("slow consumer disconnected", {{"client", client_id_},
                                           {"user", user_},
                                           {"transport", "sse"},
                                           {"owed", why},
                                           {"backlog_bytes", backlog_bytes()}});
  // Never leaves the hub here (it may be iterating: subscriber.hpp); the
  // read fails on the closed socket and finish() runs from there.
  close_socket();
}

void SseSession::close_socket() {
  if (!socket().is_open()) return;
  boost::system::error_code ignored;
  socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket().close(ignored);
  heartbeat_.cancel();
  expiry_.cancel();
}

void SseSession::finish() {
  if (finished_) return;
  finished_ = true;
  heartbeat_.cancel();
  expiry_.cancel();
  shard_state_.queued_bytes.fetch_sub(signed_bytes(pending_.size()), std::memory_order_relaxed);
  pending_.clear();
  held_.clear();
  held_bytes_ = 0;
  const bool stopped = state_.stopped.load(std::memory_order_relaxed);
  for (const Room& room : rooms_) {
    if (room.state != RoomState::joined) continue;
    shard_state_.hub.leave(room.name, this);
    state_.gw.subscriptions->sub(1);
    // After the server stopped its shards the broker must not be called.
    if (!stopped) state_.broker->unsubscribe(shard_, room.name, client_id_);
  }
}

}  // namespace herald::gateway::sse
