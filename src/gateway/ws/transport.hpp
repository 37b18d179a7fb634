// A WebSocket connection's bytes after the opening handshake: the TCP
// socket itself, or the TLS stream over it. WsConnection frames and queues;
// this class only moves bytes, with the two operations the write path is
// built on (ws_connection.hpp):
//
//  - write_some(iovecs): takes what it can now, never blocking. Plain TCP
//    is one sendmsg of the gathered frames (the kernel copies them). Over
//    TLS the bytes are copied into one buffer of up to kTlsWriteBytes and
//    encrypted by one asynchronous write (OpenSSL makes 16 KiB records of
//    it): the gather buffer cannot go to SSL_write as it is, and a write per
//    frame would make a record, and a syscall, per frame. Bytes taken are
//    the transport's: the queue may release them.
//  - wait_writable(): calls `on_writable` once more can be taken: when the
//    socket is writable (plain), when the TLS write in flight has finished.
//
// Reads are async_read_some on either (TLS decrypts). One read and one
// write may be outstanding at once, which OpenSSL's stream allows.
//
// Lifetime: every pending operation holds `keep_alive` (the session), as
// WsConnection's own operations do. Single-threaded: the shard's thread.
#pragma once

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <sys/uio.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <variant>

#include "gateway/client_stream.hpp"
#include "gateway/ws/handler_memory.hpp"

namespace herald::gateway::ws {

class Transport {
 public:
  // Plaintext taken per TLS write: a few records, enough that a burst of
  // publications leaves in one syscall, small enough to stay in cache.
  static constexpr std::size_t kTlsWriteBytes = 64 * 1024;

  using WritableHandler = std::function<void(const boost::system::error_code&)>;

  // Not open until open(); `on_writable` answers wait_writable().
  Transport(boost::asio::any_io_executor executor, WritableHandler on_writable);

  // Takes the handshaken stream: the socket of a plain one, the whole TLS
  // stream (its session and any bytes it read ahead) of a TLS one.
  void open(ClientStream&& stream, std::weak_ptr<void> keep_alive);

  template <class Handler>
  void async_read_some(boost::asio::mutable_buffer buffer, Handler&& handler) {
    if (Tls* tls = std::get_if<Tls>(&stream_)) {
      tls->stream.async_read_some(buffer, std::forward<Handler>(handler));
    } else {
      std::get<boost::asio::ip::tcp::socket>(stream_).async_read_some(
          buffer, std::forward<Handler>(handler));
    }
  }

  // Over TLS, a read completes with one record, and the records that came
  // with it wait in the TLS stream, each costing a loop turn of its own:
  // a publisher's burst would be handled one publication per turn and each
  // subscriber written once per publication (measured: 1 message per write
  // over TLS against 7.9 on TCP, G2). This takes, without waiting and
  // without touching the socket, the plaintext of records already received;
  // 0 when there is none (and always on TCP, where one read takes all).
  std::size_t read_buffered(std::span<char> into);
  // Whether read_buffered has anything to give (never on TCP).
  [[nodiscard]] bool has_buffered() const;

  // The bytes taken from `iov` now: 0 with `ec` = would_block when none
  // can be; another `ec` when the connection failed.
  std::size_t write_some(std::span<const iovec> iov, boost::system::error_code& ec);
  void wait_writable();

  [[nodiscard]] bool is_open() const;
  // Plain TCP: half-closes the write side (shutdown(SHUT_WR)): the peer
  // reads a FIN after what was written, while reads here go on. The caller
  // has nothing more to write. Over TLS nothing is done: write_some hands
  // the bytes to an asynchronous write that may still be in flight, and a
  // TLS stream has no half-close of its own short of close_notify; the
  // caller's bounded wait ends such a connection instead.
  void shutdown_send();
  // Shuts the TCP connection down and closes it; pending operations end
  // with an error.
  void close();

 private:
  struct Tls {
    TlsStream stream;
    std::string out;  // plaintext being written; empty when no write is in flight
    bool waiting = false;
  };
  std::size_t write_tls(Tls& tls, std::span<const iovec> iov, boost::system::error_code& ec);

  std::variant<boost::asio::ip::tcp::socket, Tls> stream_;
  WritableHandler on_writable_;
  std::weak_ptr<void> keep_alive_;
  HandlerMemory write_memory_;
};

}  // namespace herald::gateway::ws
