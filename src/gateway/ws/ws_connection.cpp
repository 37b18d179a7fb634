#include "gateway/ws/ws_connection.hpp"

#include <boost/asio/bind_allocator.hpp>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <system_error>

#include "core/log.hpp"
#include "core/time/steady_clock.hpp"
#include "gateway/ws/deflate_offer.hpp"
#include "gateway/ws/frame_header.hpp"
#include "gateway/ws/write_cork.hpp"

namespace herald::gateway::ws {
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace asio = boost::asio;

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

template <class Handshake>
Handshake handshake_over(ClientStream&& stream) {
  return std::visit(
      [](auto& s) -> Handshake {
        using Stream = std::decay_t<decltype(s)>;
        return std::make_unique<websocket::stream<Stream>>(std::move(s));
      },
      stream);
}

template <class Handshake>
asio::any_io_executor executor_of(Handshake& handshake) {
  return std::visit([](auto& h) -> asio::any_io_executor { return h->get_executor(); }, handshake);
}

}  // namespace

WsConnection::WsConnection(ClientStream&& stream, ServerState& state, ShardState& shard,
                           Owner& owner)
    : handshake_(handshake_over<Handshake>(std::move(stream))),
      transport_(executor_of(handshake_), [this](const beast::error_code& ec) { on_writable(ec); }),
      state_(state),
      shard_(shard),
      owner_(owner),
      reader_(state.options.client.max_message_bytes),
      idle_timer_(executor_of(handshake_)),
      out_(shard.queued_bytes) {}

WsConnection::~WsConnection() {
  shard_.cork->cancel(cork_slot_);
}

void WsConnection::start(const http::HttpRequest& request, std::weak_ptr<void> keep_alive) {
  keep_alive_ = std::move(keep_alive);
  const ClientLimits& limits = state_.options.client;
  // permessage-deflate (RFC 7692): answered here, in the 101 Beast
  // writes; Beast's own compression stays off (the framing is ours).
  std::optional<std::string> deflate;
  if (limits.compression) {
    std::string offers;
    const auto [first, last] = request.equal_range(beast::http::field::sec_websocket_extensions);
    for (auto field = first; field != last; ++field) {
      if (!offers.empty()) offers += ", ";
      offers += field->value();
    }
    deflate = negotiate_permessage_deflate(offers);
  }
  deflate_ = deflate.has_value();
  std::visit(
      [&](auto& handshake) {
        // Beast's handshake has its own timeout; the TCP stream's must not
        // fire.
        beast::get_lowest_layer(*handshake).expires_never();
        websocket::stream_base::timeout timeouts{};
        timeouts.handshake_timeout = limits.handshake_timeout;
        timeouts.idle_timeout = websocket::stream_base::none();
        timeouts.keep_alive_pings = false;
        handshake->set_option(timeouts);
        handshake->set_option(websocket::stream_base::decorator(
            [deflate = std::move(deflate)](websocket::response_type& res) {
              res.set(beast::http::field::server, "herald");
              if (deflate) res.set(beast::http::field::sec_websocket_extensions, *deflate);
            }));
        handshake->async_accept(
            request, [this, self = keep_alive_.lock()](beast::error_code ec) { on_handshake(ec); });
      },
      handshake_);
}

void WsConnection::on_handshake(beast::error_code ec) {
  if (ec) {
    log::debug("websocket handshake failed", {{"error", ec.message()}});
    std::visit([](auto& h) { h.reset(); }, handshake_);
    return closed();
  }
  // The 101 is written: from here on the stream and its framing are ours.
  // Nothing was read past the request (Beast's accept with a request reads
  // nothing, and RFC 6455 4.1 has the client wait for the 101 before it
  // sends a frame), so no bytes are left behind in Beast's buffers; a TLS
  // stream moves whole, with whatever it decrypted ahead.
  transport_.open(std::visit(
                      [](auto& h) {
                        ClientStream s(std::move(h->next_layer()));
                        h.reset();
                        return s;
                      },
                      handshake_),
                  keep_alive_);
  open_ = true;
  if (deflate_) {
    reader_.enable_inflate();
    out_.enable_deflate();
  }
  // Keep-alive: ping a silent client at half the idle timeout, close it
  // when the other half passes in silence too.
  protocol_ping_ = owner_.has_protocol_ping();
  arm_idle_timer(state_.options.client.keepalive_period());
  in_.resize(kInitialReadBytes);
  owner_.on_open();
  read();
}

void WsConnection::arm_idle_timer(std::chrono::milliseconds after) {
  idle_timer_.expires_after(after);
  idle_timer_.async_wait([this, weak = keep_alive_](beast::error_code e) {
    auto s = weak.lock();
    if (!e && s) on_idle_tick();
  });
}

void WsConnection::on_idle_tick() {
  if (released_) return;
  // The peer's close (or, discarding, its end of the connection) did not
  // come in the bounded wait: close anyway.
  if (close_written_ || discarding_) return close_socket();
  if (heard_) {
    heard_ = false;
    ping_sent_ = false;
    // A protocol's own ping goes out every period (its client counts on
    // it); a WebSocket ping only to a client that went silent.
    if (protocol_ping_ && !close_frame_) send_ping();
  } else if (!ping_sent_ && !close_frame_) {
    send_ping();
  } else {
    log::debug("websocket idle timeout");
    return close_socket();
  }
  arm_idle_timer(state_.options.client.keepalive_period());
}

void WsConnection::send_ping() {
  ping_sent_ = true;
  if (protocol_ping_) {
    owner_.send_protocol_ping();
  } else {
    out_.push_control(control_frame(Opcode::ping, {}));
  }
  schedule_flush(false);
}

void WsConnection::read() {
  if (in_.size() - in_size_ < kInitialReadBytes / 2) in_.resize(in_.size() * 2);
  transport_.async_read_some(
      asio::buffer(in_.data() + in_size_, in_.size() - in_size_),
      asio::bind_allocator(HandlerAllocator<int>(read_memory_),
                           [this, self = keep_alive_.lock()](beast::error_code ec, std::size_t n) {
                             on_read(ec, n);
                           }));
}

void WsConnection::on_read(beast::error_code ec, std::size_t bytes) {
  if (ec) {
    // Closed by the peer (EOF without a close frame), by us, or reset.
    if (ec != asio::error::eof && ec != asio::error::operation_aborted)
      log::debug("websocket read ended", {{"error", ec.message()}});
    reader_stopped_ = true;
    close_socket();
    return closed();
  }
  if (discarding_) {
    // Refused input: what the peer still sends is read and dropped, in the
    // same buffer from its start, so that closing leaves nothing unread (an
    // unread byte turns close() into a reset, which can destroy our close
    // frame at the peer). Nothing is parsed: the frame boundaries are lost.
    in_size_ = 0;
    return read();
  }
  heard_ = true;
  const bool filled = in_size_ + bytes == in_.size();
  in_size_ += bytes;
  // Records that arrived with this one (TLS): handled in this turn too, so
  // that a burst of messages is read as on TCP (transport.hpp says why).
  while (transport_.has_buffered()) {
    if (in_size_ == in_.size()) {
      if (in_.size() >= kBusyReadBytes) break;
      in_.resize(in_.size() * 2);
    }
    const std::size_t more =
        transport_.read_buffered(std::span<char>(in_.data() + in_size_, in_.size() - in_size_));
    if (more == 0) break;
    in_size_ += more;
  }
  std::size_t pos = 0;
  bool reading = true;
  while (reading) {
    const ReadResult r = reader_.next(std::span<char>(in_.data() + pos, in_size_ - pos));
    if (r.event == ReadEvent::need_more) break;
    pos += r.consumed;
    reading = on_frame(r);
  }
  if (discarding_) {
    // The input was refused: the rest of it is dropped, and so is whatever follows.
    in_size_ = 0;
    return read();
  }
  if (!reading) {
    // The peer's close was received: nothing more is read. The socket
    // closes when our close frame is out (perhaps already).
    reader_stopped_ = true;
    if (!transport_.is_open()) closed();
    return;
  }
  // Keep the unparsed tail at the front, and make room for all of a large
  // frame at once (its size is known from its header).
  std::copy(in_.begin() + static_cast<std::ptrdiff_t>(pos),
            in_.begin() + static_cast<std::ptrdiff_t>(in_size_), in_.begin());
  in_size_ -= pos;
  const std::size_t need = FrameReader::frame_size(std::span<const char>(in_.data(), in_size_));
  if (need > in_.size()) in_.resize(need);
  if (filled && in_.size() < kBusyReadBytes) in_.resize(in_.size() * 2);
  read();
}

bool WsConnection::on_frame(const ReadResult& r) {
  switch (r.event) {
    case ReadEvent::text:
      if (!close_frame_ && !released_) owner_.on_text(r.payload);
      return true;
    case ReadEvent::binary:
      if (!close_frame_ && !released_) owner_.on_binary();
      return true;
    case ReadEvent::ping:
      if (close_frame_) return true;  // closing: no more frames but our close
      if (out_.control_bytes() + r.payload.size() > state_.options.client.max_queue_bytes) {
        // Pings sent faster than their pongs are read: a slow consumer too
        // (the pongs would otherwise pile up without bound).
        owner_.on_overflow();
        return true;
      }
      out_.push_control(control_frame(Opcode::pong, r.payload));
      schedule_flush(false);
      return true;
    case ReadEvent::pong:
    case ReadEvent::fragment:
    case ReadEvent::need_more:
      return true;
    case ReadEvent::close:
      close_received_ = true;
      if (close_written_) {
        close_socket();  // the handshake is complete
      } else if (!close_queued_) {
        // Echo the peer's code (RFC 6455 5.5.1); what was queued is dropped:
        // the peer will not read it.
        out_.drop_queued();
        send_close(r.close_code == kCloseNoStatus ? kCloseNormal : r.close_code, {});
      }
      return false;
    case ReadEvent::error:
      log::debug("websocket protocol error", {{"error", r.payload}});
      // Lingering close: the read loop goes on, discarding, until the peer
      // closes its end or client.handshake_timeout passes from now (the
      // bound: a peer that never closes or never reads cannot hold the
      // connection longer). Set before send_close, whose write may finish
      // at once and half-close.
      discarding_ = true;
      arm_idle_timer(state_.options.client.handshake_timeout);
      out_.drop_queued();
      if (close_written_) {
        transport_.shutdown_send();  // our close (the owner's) is already out
      } else if (!close_queued_) {
        send_close(r.close_code, r.payload);
      }
      return false;
  }
  return true;
}

void WsConnection::enqueue(const fanout::MessagePtr& frame, bool replied) {
  if (close_frame_ || released_) return;
  out_.push(frame);
  schedule_flush(replied);
}

void WsConnection::schedule_flush(bool replied) {
  if (released_) return;
  if (cork_slot_ != 0) {
    if (!replied || WriteCork::is_replied(cork_slot_)) return;
    shard_.cork->cancel(cork_slot_);  // moves up to the replied-to list
  }
  cork_slot_ = shard_.cork->add(this, replied);
}

void WsConnection::corked_flush() {
  cork_slot_ = 0;
  flush();
}

void WsConnection::flush() {
  if (released_ || !open_) return;
  owner_.before_write();
  if (!waiting_writable_) write_now();
}

void WsConnection::write_now() {
  std::array<iovec, kMaxIovecs> iov{};
  for (;;) {
    const std::size_t n = out_.gather(iov);
    if (n == 0) {
      if (close_frame_ && !close_queued_) {
        // Data done: our close frame goes last.
        out_.push_control(close_frame(close_frame_->first, close_frame_->second));
        close_queued_ = true;
        continue;
      }
      if (close_queued_ && !close_written_) on_close_written();
      return;
    }
    std::size_t offered = 0;
    for (std::size_t i = 0; i < n; ++i) offered += iov[i].iov_len;
    beast::error_code ec;
    const std::size_t written = transport_.write_some(std::span(iov.data(), n), ec);
    if (ec == asio::error::would_block) break;
    if (ec) {
      log::debug("websocket write failed", {{"error", ec.message()}});
      return close_socket();  // the read fails and tells the owner
    }
    const OutboundQueue::Written w = out_.consume(written);
    state_.gw.write_batches->inc();
    state_.gw.bytes_out->inc(written);
    if (w.frames != 0) state_.gw.messages_out->inc(w.frames);
    if (w.oldest_published != 0) {
      state_.gw.publish_to_write->observe(
          static_cast<double>(steady_now_ns() - w.oldest_published) / 1e9);
    }
    if (written < offered) break;  // the kernel is full: wait rather than ask again
  }
  // What is left waits until the transport can take more.
  waiting_writable_ = true;
  transport_.wait_writable();
}

void WsConnection::on_writable(beast::error_code ec) {
  waiting_writable_ = false;
  if (ec || released_) return;  // the read side sees the error and tells the owner
  flush();
}

void WsConnection::close_after_queue(std::uint16_t code, std::string_view reason) {
  if (close_frame_) return;
  close_frame_.emplace(code, std::string(reason));
  schedule_flush(false);
}

void WsConnection::close_dropping_queue(std::uint16_t code, std::string_view reason) {
  if (close_frame_) return;
  // The rest of a message already started still goes out (the stream would
  // be corrupt otherwise); nothing queued after it does.
  out_.drop_queued();
  close_frame_.emplace(code, std::string(reason));
  schedule_flush(false);
}

void WsConnection::send_close(std::uint16_t code, std::string_view reason) {
  if (close_frame_) return;
  close_frame_.emplace(code, std::string(reason));
  // Written now, not at the cork's drain: the read loop has stopped, and
  // the write must not wait for a drain that the owner's end could cancel.
  if (!waiting_writable_) write_now();
}

void WsConnection::on_close_written() {
  close_written_ = true;
  if (close_received_ || reader_stopped_) return close_socket();
  if (discarding_) {
    // Nothing more to write: the FIN tells the peer we are done (it need
    // not wait for the timer, armed at the refusal, to close its end), and
    // the reads go on draining until its EOF.
    transport_.shutdown_send();
    return;
  }
  // Wait for the peer's close frame (the read loop goes on), a bounded
  // time: the next idle tick after it closes the socket.
  arm_idle_timer(state_.options.client.handshake_timeout);
}

void WsConnection::release() {
  released_ = true;
  idle_timer_.cancel();
  // Whatever was not written is dropped; the queue's destructor settles
  // the shard's byte gauge.
  out_.drop_queued();
}

void WsConnection::close_socket() {
  if (transport_.is_open()) {
    transport_.close();  // a pending read completes and tells the owner
    idle_timer_.cancel();
  }
  if (reader_stopped_) closed();
}

void WsConnection::closed() {
  if (closed_) return;
  closed_ = true;
  owner_.on_closed();
}

}  // namespace herald::gateway::ws
