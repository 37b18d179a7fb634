// One WebSocket connection's transport: the socket and its RFC 6455 framing,
// under the protocol session that owns it (WsSession, which knows commands,
// rooms and codes; this class knows bytes, frames and the close handshake).
//
// Beast performs the opening handshake; then the connection owns the TCP
// socket, or the TLS stream over it (ws/transport.hpp: the framing and the
// write path below are the same for both). Reading: ws/frame_reader.hpp turns the bytes into
// messages and control frames; text and binary messages go to the owner, pings are answered here, a
// peer's close is echoed, a protocol error closes with the code the reader gives (1002/1007/1009).
// Keep-alive: a silent peer is pinged at half of client.idle_timeout and closed at the end of it.
//
// Writing: frames go to the OutboundQueue (ws/outbound_queue.hpp) and the
// connection joins the shard's cork (ws/write_cork.hpp); when the cork
// drains, flush() hands everything queued to ONE non-blocking write (a
// sendmsg; over TLS one encrypted write), as one WebSocket message whose
// lines are the shared frames' own bytes. Only what the transport does not
// take waits, for the socket to become writable;
// new frames join the queue meanwhile, so a slow socket gets larger writes
// by itself. With permessage-deflate negotiated (client.compression, the
// client offered it), the reader inflates compressed messages and the queue
// sends each message compressed when that makes it smaller, from the
// frames' shared compressed bytes (ws/deflate_codec.hpp).
//
// Closing follows RFC 6455 §7: our close frame goes after what the caller
// chose to keep queued; then we wait (client.handshake_timeout) for the
// peer's close before closing the socket. The states, by who closes first:
//
//  - The owner closes (close_after_queue/_dropping_queue): our close frame
//    is written (close_written_), the read loop goes on parsing, and the
//    peer's close frame (close_received_) or the idle timer, armed for
//    client.handshake_timeout, closes the socket.
//  - The peer closes first: its close frame stops the reads
//    (reader_stopped_); we echo it, and the socket closes once the echo is
//    written.
//  - We refuse the peer's input (a frame reader error: 1002, 1007, 1009):
//    a lingering close (RFC 6455 §7.1.1, §7.1.7). The rest of the input may
//    still be on its way, and closing a socket with unread bytes sends a
//    reset instead of a FIN, which can destroy our close frame at the peer
//    (a browser then sees 1006 and reconnects). So the reads go on,
//    discarding everything unparsed (discarding_), in the same bounded
//    buffer; our close frame is written; then, on plain TCP, the write side
//    is half-closed (the peer reads the frame and an EOF); the socket
//    closes at the peer's EOF or error, or when the idle timer, armed for
//    client.handshake_timeout at the refusal, fires: a peer that never
//    closes, or never reads our close frame, is bounded all the same. Over
//    TLS there is no half-close (transport.hpp): the drain ends the same
//    way, at the peer's end or the timer.
//
// Lifetime: the connection is a member of its owner. Every pending
// operation holds the owner alive (a shared_ptr the owner hands to
// start()), so the connection outlives them; the cork holds a raw pointer
// that the destructor cancels. Single-threaded: the shard's thread only.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gateway/client_stream.hpp"
#include "gateway/fanout/message.hpp"
#include "gateway/http/router.hpp"
#include "gateway/server_state.hpp"
#include "gateway/ws/frame_reader.hpp"
#include "gateway/ws/handler_memory.hpp"
#include "gateway/ws/outbound_queue.hpp"
#include "gateway/ws/transport.hpp"

namespace herald::gateway::ws {

class WsConnection {
 public:
  // What the connection tells the protocol above it, on the shard's thread.
  class Owner {
   public:
    virtual void on_open() = 0;                          // the handshake is done
    virtual void on_text(std::string_view message) = 0;  // a whole text message
    virtual void on_binary() = 0;                        // a whole binary message
    virtual void before_write() = 0;                     // about to write: last chance to queue
    virtual void on_overflow() = 0;  // the peer owes more pongs than client.max_queue_bytes
    virtual void on_closed() = 0;    // the socket is gone (or never opened)
    // Whether the protocol pings in its own messages (Centrifugo's `{}`,
    // which its clients watch for and answer) instead of WebSocket ping
    // frames; asked once, at open. Such a ping goes out every period,
    // whatever was heard, because the client times out without one.
    [[nodiscard]] virtual bool has_protocol_ping() const = 0;
    virtual void send_protocol_ping() = 0;

   protected:
    Owner() = default;
    ~Owner() = default;
    Owner(const Owner&) = default;
    Owner& operator=(const Owner&) = default;
  };

  WsConnection(ClientStream&& stream, ServerState& state, ShardState& shard, Owner& owner);
  ~WsConnection();
  WsConnection(const WsConnection&) = delete;
  WsConnection& operator=(const WsConnection&) = delete;

  // Completes the upgrade for `request`; every operation from now on holds
  // `keep_alive` (the owner).
  void start(const http::HttpRequest& request, std::weak_ptr<void> keep_alive);

  // Queues a frame and joins the cork (among the replied-to connections,
  // flushed first, when `replied`: write_cork.hpp says why). Ignored once a
  // close is decided.
  void enqueue(const fanout::MessagePtr& frame, bool replied);
  [[nodiscard]] std::int64_t backlog_bytes() const { return out_.backlog_bytes(); }

  // Our close frame, after everything queued so far.
  void close_after_queue(std::uint16_t code, std::string_view reason);
  // Our close frame, dropping what no write has started (a slow consumer).
  void close_dropping_queue(std::uint16_t code, std::string_view reason);
  // The owner is done: drop what is queued, stop the keep-alive.
  void release();

  // Called by the shard's cork (ws/write_cork.hpp) when it drains.
  void corked_flush();

 private:
  void on_handshake(boost::beast::error_code ec);
  void read();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  // Acts on one event of the frame reader; false: stop reading input.
  bool on_frame(const ReadResult& r);
  void arm_idle_timer(std::chrono::milliseconds after);
  void on_idle_tick();
  void send_ping();  // this period's: the protocol's own, or a WebSocket ping frame
  void schedule_flush(bool replied);
  void flush();
  // Writes what the queue holds until it is empty or the kernel is full.
  void write_now();
  void on_writable(boost::beast::error_code ec);
  // Queues our close frame (code and reason) once the data is out.
  void send_close(std::uint16_t code, std::string_view reason);
  // Everything, our close frame last, is written.
  void on_close_written();
  void close_socket();
  void closed();  // tells the owner, once

  // The opening handshake only; null once the socket is ours.
  // The opening handshake only; both null once the stream is the
  // transport's.
  using Handshake = std::variant<std::unique_ptr<boost::beast::websocket::stream<PlainStream>>,
                                 std::unique_ptr<boost::beast::websocket::stream<TlsStream>>>;
  Handshake handshake_;
  Transport transport_;
  ServerState& state_;
  ShardState& shard_;
  Owner& owner_;
  std::weak_ptr<void> keep_alive_;

  // Inbound: bytes read and not yet parsed, [0, in_size_) of in_.
  std::vector<char> in_;
  std::size_t in_size_ = 0;
  FrameReader reader_;
  HandlerMemory read_memory_;    // the read, always outstanding
  bool heard_ = false;           // anything read since the last idle tick
  bool ping_sent_ = false;       // an idle tick pinged; the next one closes
  bool protocol_ping_ = false;   // Owner::has_protocol_ping, read at open
  bool reader_stopped_ = false;  // no read outstanding: the peer's close was received, or the
                                 // connection ended
  bool discarding_ = false;      // input refused: reads go on, dropping all (lingering close)
  boost::asio::steady_timer idle_timer_;

  // Outbound.
  OutboundQueue out_;
  std::size_t cork_slot_ = 0;  // 0: not in the shard's cork
  bool waiting_writable_ = false;
  std::optional<std::pair<std::uint16_t, std::string>> close_frame_;  // ours, once decided
  bool close_queued_ = false;                                         // our close frame is in out_
  bool close_written_ = false;                                        // ... and written
  bool close_received_ = false;  // the peer's close frame arrived

  bool deflate_ = false;   // permessage-deflate negotiated (RFC 7692)
  bool open_ = false;      // the handshake completed
  bool released_ = false;  // the owner is done
  bool closed_ = false;    // on_closed was sent
};

}  // namespace herald::gateway::ws
