// One load-generator WebSocket connection on a shared io_context: connect,
// upgrade (over TLS when given a client context: wss://), then read
// messages (frames split on '\n') and write queued text one message at a
// time. Owners react through callbacks; a Conn never outlives its
// io_context's run. With `compression` it offers permessage-deflate, as a
// browser does: Beast then inflates what arrives compressed and compresses
// what it sends.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

namespace herald::bench {

class Conn : public std::enable_shared_from_this<Conn> {
 public:
  using Plain = boost::beast::websocket::stream<boost::beast::tcp_stream>;
  using Tls = boost::beast::websocket::stream<boost::beast::ssl_stream<boost::beast::tcp_stream>>;

  struct Callbacks {
    std::function<void()> on_open;
    std::function<void(std::string_view line)> on_message;
    // Called once when the connection ends for any reason after open() or
    // when open() fails; `error` says why (empty when drop() was asked;
    // "closed by server (CODE)" for a WebSocket close, with its code).
    std::function<void(const std::string& error)> on_closed;
  };

  // `tls`: connect over TLS with this client context (it must outlive the
  // connection); null for plain TCP. `compression`: offer permessage-deflate.
  // `path`: the WebSocket endpoint to upgrade on.
  Conn(boost::asio::io_context& ctx, boost::asio::ip::tcp::endpoint server, Callbacks callbacks,
       boost::asio::ssl::context* tls = nullptr, bool compression = false,
       std::string path = "/ws");
  void open();
  void send(std::string text);
  // Drops the connection at once (TCP close, no WebSocket close handshake),
  // like a client losing its network.
  void drop();
  [[nodiscard]] bool is_open() const { return open_; }

 private:
  void upgrade();
  void read();
  void write_next();
  void fail(const std::string& error);
  boost::beast::tcp_stream& tcp();

  std::variant<Plain, Tls> ws_;
  boost::asio::ip::tcp::endpoint server_;
  std::string path_;
  boost::beast::flat_buffer buffer_;
  std::deque<std::string> out_;
  Callbacks cb_;
  bool open_ = false;
  bool writing_ = false;
  bool closed_ = false;
};

}  // namespace herald::bench
