#include "gateway/sse/sse_session.hpp"

#include <boost/asio/write.hpp>

#include "core/log.hpp"
#include "core/time/steady_clock.hpp"
#include "gateway/codec/herald_sse.hpp"
#include "gateway/sse/stream_id.hpp"

namespace herald::gateway::sse {
namespace asio = boost::asio;
namespace herald_sse = codec::herald_sse;
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

SseSession::SseSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease,
                       ServerState& state, unsigned shard, StreamRequest request)
    : state_(state),
      shard_state_(*state.shards[shard]),
      stream_(std::move(stream)),
      heartbeat_(tcp_layer(stream_).get_executor()),
      lease_(std::move(lease)),
      max_queue_bytes_(signed_bytes(state.options.client.max_queue_bytes)),
      client_(state, shard_state_, tcp_layer(stream_).get_executor(), *this,
              client::Setup{{}, {}, /*asks_hooks=*/false}),
      identity_(std::move(request.identity)) {
  for (std::string& name : request.rooms) {
    Room room;
    room.name = std::move(name);
    for (auto& [r, position] : request.since) {
      if (r == room.name) room.since = std::move(position);
    }
    rooms_.push_back(std::move(room));
  }
  state_.gw.sse_streams->add(1);
}

SseSession::~SseSession() {
  finish();
  state_.gw.sse_streams->sub(1);
  state_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void SseSession::start(unsigned http_version) {
  state_.count_response(200);
  queue(response_head(http_version));
  read_some();
  arm_heartbeat();
  // The core decides each room (a namespace that needs the subscribe hook
  // is refused: this transport asks no hooks); the opening lists them all.
  std::vector<std::string> rooms;
  protocol::RoomPositions since;
  for (const Room& room : rooms_) {
    rooms.push_back(room.name);
    if (room.since) since.emplace_back(room.name, *room.since);
  }
  client_.start(weak_from_this());
  client_.open(std::move(identity_), rooms, since);
}

void SseSession::reply(std::uint32_t /*id*/, const protocol::Reply& reply) {
  if (const auto* opening = std::get_if<protocol::ConnectReply>(&reply)) open(*opening);
}

void SseSession::reply_error(std::uint32_t /*id*/, protocol::ErrorCode /*code*/,
                             std::string_view /*message*/) {
  // A stream sends no commands, so nothing is answered with an error.
}

void SseSession::open(const protocol::ConnectReply& reply) {
  opened_ = true;
  // Each room's answer, in the order the request named them.
  std::vector<const protocol::SubscribeResult*> results(rooms_.size(), nullptr);
  for (const protocol::ServerSubscription& sub : reply.subs) {
    const std::size_t i = room_index(sub.room);
    if (i == rooms_.size()) continue;
    Room& room = rooms_[i];
    if (!sub.result) {
      room.state = RoomState::refused;
      room.error = sub.error;
      continue;
    }
    room.state = RoomState::joined;
    room.recovered = sub.result->recovered;
    room.top = sub.result->offset;
    // The position before the result's publications: where the client
    // stood when it recovered, else the stream's top (a fresh subscription
    // or a failed recovery carries none).
    room.position = room.recovered && room.since
                        ? *room.since
                        : protocol::StreamPosition{sub.result->epoch, sub.result->offset};
    results[i] = &*sub.result;
  }
  if (closing_) return;  // a disconnect is on its way out: nothing after it
  append_event(herald_sse::kConnected, herald_sse::connected(reply), true);
  for (const Room& room : rooms_) {
    if (room.state == RoomState::refused) {
      append_event(herald_sse::kRefused, herald_sse::refused(room.name, *room.error), true);
      continue;
    }
    const protocol::StreamPosition at{room.position.epoch, room.top};
    if (room.since && !room.recovered) {
      append_event(herald_sse::kRecovery, herald_sse::recovery(room.name, at), true);
    }
    append_event(herald_sse::kSubscribed, herald_sse::subscribed(room.name, at, room.recovered),
                 true);
  }
  // The ordering contract: a room's result publications come before
  // anything delivered to it after its answer (held below).
  for (std::size_t i = 0; i < rooms_.size(); ++i) {
    if (!results[i]) continue;
    for (const fanout::MessagePtr& p : results[i]->publications) write_push(i, p);
  }
  std::vector<std::pair<std::size_t, fanout::MessagePtr>> held;
  held.swap(held_);
  held_bytes_ = 0;
  for (const auto& [index, message] : held) write_push(index, message);
}

void SseSession::push(const std::string& room, const fanout::MessagePtr& message) {
  if (finished_ || closing_ || overflowed_) return;
  const std::size_t index = room_index(room);
  if (index == rooms_.size()) return;
  if (!opened_) {
    const std::int64_t weight = signed_bytes(message->text.size());
    if (backlog_bytes() + weight > max_queue_bytes_) {
      return overflow("pushes held before the stream opened");
    }
    held_bytes_ += weight;
    held_.emplace_back(index, message);
    return;
  }
  write_push(index, message);
}

void SseSession::write_push(std::size_t index, const fanout::MessagePtr& message) {
  bool with_id = false;
  if (auto position = herald_sse::position_of(message->text)) {
    rooms_[index].position = std::move(*position);
    with_id = true;
  }
  append_event({}, message->text, with_id);
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
  // Closed, or a slow consumer: nothing more is written.
  if (finished_ || overflowed_ || !socket().is_open()) return;
  if (backlog_bytes() + signed_bytes(bytes.size()) > max_queue_bytes_) return overflow("events");
  pending_ += bytes;
  shard_state_.queued_bytes.fetch_add(signed_bytes(bytes.size()), std::memory_order_relaxed);
  if (writing_.empty()) write_some();
}

void SseSession::overflow(std::string_view what) {
  overflowed_ = true;
  client_.close_slow_consumer(what, backlog_bytes());
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
              {{"client", client_.id()}, {"user", client_.user()}});
    close_socket();
    return finish();
  }
  if (!wrote_since_tick_ && !closing_) queue(":\n\n");
  wrote_since_tick_ = false;
  arm_heartbeat();
}

void SseSession::disconnect(std::uint16_t code, std::string_view reason, bool reconnect) {
  if (finished_ || closing_) return;
  append_event({}, herald_sse::disconnect(code, reason, reconnect), false);
  closing_ = true;
  if (writing_.empty() && pending_.empty()) close_socket();
}

void SseSession::close_now(DisconnectCode /*code*/) {
  // A slow consumer: never leaves the hub here (it may be iterating:
  // fanout/subscriber.hpp); the read fails on the closed socket and
  // finish() runs from there.
  if (!finished_) close_socket();
}

void SseSession::close_socket() {
  if (!socket().is_open()) return;
  boost::system::error_code ignored;
  socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket().close(ignored);
  heartbeat_.cancel();
}

void SseSession::finish() {
  if (finished_) return;
  finished_ = true;
  heartbeat_.cancel();
  shard_state_.queued_bytes.fetch_sub(signed_bytes(pending_.size()), std::memory_order_relaxed);
  pending_.clear();
  held_.clear();
  held_bytes_ = 0;
  client_.finish();
}

}  // namespace herald::gateway::sse
