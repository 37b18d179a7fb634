#include "conn.hpp"

namespace herald::bench {
namespace beast = boost::beast;
namespace websocket = beast::websocket;

Conn::Conn(boost::asio::io_context& ctx, boost::asio::ip::tcp::endpoint server, Callbacks callbacks,
           bool compression)
    : ws_(ctx), server_(std::move(server)), cb_(std::move(callbacks)) {
  if (compression) {
    websocket::permessage_deflate pmd;
    pmd.client_enable = true;
    ws_.set_option(pmd);
  }
}

void Conn::open() {
  beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(30));
  beast::get_lowest_layer(ws_).async_connect(server_, [self = shared_from_this()](
                                                          beast::error_code ec) {
    if (ec) return self->fail("connect: " + ec.message());
    beast::get_lowest_layer(self->ws_).socket().set_option(boost::asio::ip::tcp::no_delay(true));
    self->ws_.async_handshake("127.0.0.1", "/ws", [self](beast::error_code e) {
      if (e) return self->fail("handshake: " + e.message());
      beast::get_lowest_layer(self->ws_).expires_never();
      self->ws_.read_message_max(64 << 20);
      self->open_ = true;
      if (self->cb_.on_open) self->cb_.on_open();
      self->read();
      self->write_next();
    });
  });
}

void Conn::read() {
  ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) return self->fail(ec == websocket::error::closed ? "closed by server" : ec.message());
    auto data = self->buffer_.cdata();
    // Safety: a flat_buffer's readable bytes are one contiguous char range.
    std::string_view frame(static_cast<const char*>(data.data()), data.size());
    while (!frame.empty() && !self->closed_) {
      auto nl = frame.find('\n');
      std::string_view line = frame.substr(0, nl);
      if (!line.empty() && self->cb_.on_message) self->cb_.on_message(line);
      if (nl == std::string_view::npos) break;
      frame.remove_prefix(nl + 1);
    }
    self->buffer_.consume(self->buffer_.size());
    if (!self->closed_) self->read();
  });
}

void Conn::send(std::string text) {
  if (closed_) return;
  out_.push_back(std::move(text));
  if (open_) write_next();
}

void Conn::write_next() {
  if (writing_ || out_.empty() || closed_) return;
  writing_ = true;
  ws_.text(true);
  ws_.async_write(boost::asio::buffer(out_.front()),
                  [self = shared_from_this()](beast::error_code ec, std::size_t) {
                    self->writing_ = false;
                    if (ec) return self->fail("write: " + ec.message());
                    self->out_.pop_front();
                    self->write_next();
                  });
}

void Conn::drop() {
  fail("");
}  // an empty reason tells the owner it asked for this

void Conn::fail(const std::string& error) {
  if (closed_) return;
  closed_ = true;
  open_ = false;
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).socket().close(ignored);
  if (cb_.on_closed) {
    auto cb = std::move(cb_.on_closed);
    cb_.on_closed = nullptr;
    cb(error);
  }
}

}  // namespace herald::bench
