#include "gateway/ws/transport.hpp"

#include <boost/asio/write.hpp>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace herald::gateway::ws {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Transport::Transport(asio::any_io_executor executor, WritableHandler on_writable)
    : stream_(std::in_place_type<tcp::socket>, std::move(executor)),
      on_writable_(std::move(on_writable)) {}

void Transport::open(ClientStream&& stream, std::weak_ptr<void> keep_alive) {
  keep_alive_ = std::move(keep_alive);
  if (auto* tls = std::get_if<TlsStream>(&stream)) {
    stream_.emplace<Tls>(Tls{std::move(*tls), {}, false});
    return;
  }
  auto& socket = stream_.emplace<tcp::socket>(std::get<PlainStream>(stream).release_socket());
  // write_some's sendmsg must never block the shard.
  boost::system::error_code ignored;
  socket.non_blocking(true, ignored);
}

std::size_t Transport::write_some(std::span<const iovec> iov, boost::system::error_code& ec) {
  ec = {};
  if (Tls* tls = std::get_if<Tls>(&stream_)) return write_tls(*tls, iov, ec);
  auto& socket = std::get<tcp::socket>(stream_);
  msghdr msg{};
  // Safety: msghdr's iov is non-const for recvmsg's sake; sendmsg only reads.
  msg.msg_iov = const_cast<iovec*>(iov.data());
  msg.msg_iovlen = iov.size();
  for (;;) {
    const ssize_t sent = ::sendmsg(socket.native_handle(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent >= 0) {
      // Safety: a byte count, not an error, so it is >= 0.
      return static_cast<std::size_t>(sent);
    }
    if (errno == EINTR) continue;
    ec = (errno == EAGAIN || errno == EWOULDBLOCK)
             ? boost::system::error_code(asio::error::would_block)
             : boost::system::error_code(errno, boost::system::system_category());
    return 0;
  }
}

std::size_t Transport::write_tls(Tls& tls, std::span<const iovec> iov,
                                 boost::system::error_code& ec) {
  if (!tls.out.empty()) {
    ec = asio::error::would_block;  // one write at a time: wait for it
    return 0;
  }
  for (const iovec& v : iov) {
    const std::size_t take = std::min(v.iov_len, kTlsWriteBytes - tls.out.size());
    // Safety: iov_base is void* by POSIX; it points at the frame's bytes.
    tls.out.append(static_cast<const char*>(v.iov_base), take);
    if (tls.out.size() == kTlsWriteBytes) break;
  }
  if (tls.out.empty()) return 0;
  asio::async_write(tls.stream, asio::buffer(tls.out),
                    asio::bind_allocator(HandlerAllocator<int>(write_memory_),
                                         [this, self = keep_alive_.lock()](
                                             boost::system::error_code e, std::size_t) {
                                           Tls* t = std::get_if<Tls>(&stream_);
                                           if (t == nullptr) return;
                                           t->out.clear();
                                           // A failed write (the peer reset) fails the
                                           // read too, which tells the owner; a waiter
                                           // hears it at once.
                                           if (e) close();
                                           if (t->waiting) {
                                             t->waiting = false;
                                             on_writable_(e);
                                           }
                                         }));
  return tls.out.size();
}

bool Transport::has_buffered() const {
  const Tls* tls = std::get_if<Tls>(&stream_);
  if (tls == nullptr) return false;
  // Safety: native_handle() is const-less in Beast; reading the SSL's
  // pending counts changes nothing.
  SSL* ssl = const_cast<TlsStream&>(tls->stream).native_handle();
  // Only what is here already: decrypted bytes, or received records in the
  // read BIO (where the stream put what it read from the socket).
  return SSL_pending(ssl) > 0 || BIO_pending(SSL_get_rbio(ssl)) > 0;
}

std::size_t Transport::read_buffered(std::span<char> into) {
  Tls* tls = std::get_if<Tls>(&stream_);
  if (tls == nullptr || into.empty() || !has_buffered()) return 0;
  SSL* ssl = tls->stream.native_handle();
  // A record that is not whole yet leaves SSL_read wanting more, and the
  // next asynchronous read completes it.
  std::size_t got = 0;
  if (SSL_read_ex(ssl, into.data(), into.size(), &got) == 1) return got;
  // Wanting more input, or an error that the next asynchronous read meets
  // and reports; nothing to say here.
  ERR_clear_error();
  return 0;
}

void Transport::wait_writable() {
  if (Tls* tls = std::get_if<Tls>(&stream_)) {
    if (tls->out.empty()) {
      // Nothing in flight (cannot happen after write_some answered
      // would_block, but the contract holds anyway): writable now, later.
      asio::post(tls->stream.get_executor(),
                 [this, self = keep_alive_.lock()] { on_writable_({}); });
    } else {
      tls->waiting = true;
    }
    return;
  }
  std::get<tcp::socket>(stream_).async_wait(
      tcp::socket::wait_write,
      asio::bind_allocator(
          HandlerAllocator<int>(write_memory_),
          [this, self = keep_alive_.lock()](boost::system::error_code e) { on_writable_(e); }));
}

bool Transport::is_open() const {
  if (const Tls* tls = std::get_if<Tls>(&stream_))
    return boost::beast::get_lowest_layer(tls->stream).socket().is_open();
  return std::get<tcp::socket>(stream_).is_open();
}

void Transport::shutdown_send() {
  auto* socket = std::get_if<tcp::socket>(&stream_);
  if (socket == nullptr || !socket->is_open()) return;
  boost::system::error_code ignored;  // a reset peer: the pending read reports it
  socket->shutdown(tcp::socket::shutdown_send, ignored);
}

void Transport::close() {
  tcp::socket& socket = std::holds_alternative<Tls>(stream_)
                            ? boost::beast::get_lowest_layer(std::get<Tls>(stream_).stream).socket()
                            : std::get<tcp::socket>(stream_);
  if (!socket.is_open()) return;
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

}  // namespace herald::gateway::ws
