#include "conn.hpp"

namespace herald::bench {
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace {

std::variant<Conn::Plain, Conn::Tls> make_stream(boost::asio::io_context& ctx,
                                                 boost::asio::ssl::context* tls) {
  if (tls == nullptr)
    return std::variant<Conn::Plain, Conn::Tls>(std::in_place_type<Conn::Plain>, ctx);
  return std::variant<Conn::Plain, Conn::Tls>(std::in_place_type<Conn::Tls>, ctx, *tls);
}

}  // namespace

Conn::Conn(boost::asio::io_context& ctx, boost::asio::ip::tcp::endpoint server, Callbacks callbacks,
           boost::asio::ssl::context* tls, bool compression, std::string path)
    : ws_(make_stream(ctx, tls)),
      server_(std::move(server)),
      path_(std::move(path)),
      cb_(std::move(callbacks)) {
  if (compression) {
    websocket::permessage_deflate pmd;
    pmd.client_enable = true;
    std::visit([&](auto& ws) { ws.set_option(pmd); }, ws_);
  }
}

beast::tcp_stream& Conn::tcp() {
  return std::visit([](auto& ws) -> beast::tcp_stream& { return beast::get_lowest_layer(ws); },
                    ws_);
}

void Conn::open() {
  tcp().expires_after(std::chrono::seconds(30));
  tcp().async_connect(server_, [self = shared_from_this()](beast::error_code ec) {
    if (ec) return self->fail("connect: " + ec.message());
    self->tcp().socket().set_option(boost::asio::ip::tcp::no_delay(true));
    Tls* tls = std::get_if<Tls>(&self->ws_);
    if (tls == nullptr) return self->upgrade();
    tls->next_layer().async_handshake(boost::asio::ssl::stream_base::client,
                                      [self](beast::error_code e) {
                                        if (e) return self->fail("tls handshake: " + e.message());
                                        self->upgrade();
                                      });
  });
}

void Conn::upgrade() {
  std::visit(
      [self = shared_from_this()](auto& ws) {
        ws.async_handshake("127.0.0.1", self->path_, [self](beast::error_code e) {
          if (e) return self->fail("handshake: " + e.message());
          self->tcp().expires_never();
          std::visit([](auto& w) { w.read_message_max(64 << 20); }, self->ws_);
          self->open_ = true;
          if (self->cb_.on_open) self->cb_.on_open();
          self->read();
          self->write_next();
        });
      },
      ws_);
}
void Conn::read() {
  std::visit(
      [this](auto& ws) {
        ws.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
          if (ec) {
            if (ec != websocket::error::closed) return self->fail(ec.message());
            // The close code says why (3005: a cluster stream reset).
            const auto code = std::visit([](auto& w) { return w.reason().code; }, self->ws_);
            return self->fail("closed by server (" + std::to_string(code) + ")");
          }
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
      },
      ws_);
}

void Conn::send(std::string text) {
  if (closed_) return;
  out_.push_back(std::move(text));
  if (open_) write_next();
}

void Conn::write_next() {
  if (writing_ || out_.empty() || closed_) return;
  writing_ = true;
  std::visit(
      [this](auto& ws) {
        ws.text(true);
        ws.async_write(boost::asio::buffer(out_.front()),
                       [self = shared_from_this()](beast::error_code ec, std::size_t) {
                         self->writing_ = false;
                         if (ec) return self->fail("write: " + ec.message());
                         self->out_.pop_front();
                         self->write_next();
                       });
      },
      ws_);
}

void Conn::drop() {
  fail("");
}  // an empty reason tells the owner it asked for this

void Conn::fail(const std::string& error) {
  if (closed_) return;
  closed_ = true;
  open_ = false;
  beast::error_code ignored;
  tcp().socket().close(ignored);
  if (cb_.on_closed) {
    auto cb = std::move(cb_.on_closed);
    cb_.on_closed = nullptr;
    cb(error);
  }
}

}  // namespace herald::bench
