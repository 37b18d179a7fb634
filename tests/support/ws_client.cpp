#include "support/ws_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket.hpp>

#include <stdexcept>

namespace herald::test {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

struct WsClient::Impl {
  asio::io_context ctx;
  websocket::stream<beast::tcp_stream> ws{ctx};
  beast::flat_buffer buffer;
  bool read_pending = false;
  bool read_done = false;
  beast::error_code read_ec;
};

WsClient::WsClient(const std::string& host, std::uint16_t port, const std::string& path,
                   const std::string& origin, const Headers& headers)
    : impl_(std::make_unique<Impl>()) {
  auto& ws = impl_->ws;
  beast::get_lowest_layer(ws).expires_after(std::chrono::seconds(10));
  beast::get_lowest_layer(ws).connect(asio::ip::tcp::endpoint(asio::ip::make_address(host), port));
  ws.set_option(websocket::stream_base::decorator([origin, headers](websocket::request_type& req) {
    if (!origin.empty()) req.set(beast::http::field::origin, origin);
    for (const auto& [name, value] : headers) req.set(name, value);
  }));
  beast::error_code ec;
  websocket::response_type res;
  // Sync handshake: bounded by the connect above only in the sense that the
  // server answers at once; the server's handshake timeout bounds it too.
  ws.handshake(res, host + ":" + std::to_string(port), path, ec);
  if (ec) {
    throw std::runtime_error("websocket handshake failed: " + ec.message() + " (HTTP " +
                             std::to_string(res.result_int()) + " " + res.body() + ")");
  }
  beast::get_lowest_layer(ws).expires_never();
  ws.read_message_max(64 * 1024 * 1024);
}

WsClient::~WsClient() {
  beast::error_code ignored;
  beast::get_lowest_layer(impl_->ws).socket().close(ignored);
}

void WsClient::send(const std::string& text) {
  impl_->ws.text(true);
  impl_->ws.write(asio::buffer(text));
}

bool WsClient::read_frame(std::chrono::milliseconds timeout) {
  if (closed_) return false;
  // One read stays outstanding across calls: a read that did not finish in
  // time is not cancelled (that would break the WebSocket stream), it is
  // simply waited for again on the next call.
  if (!impl_->read_pending) {
    impl_->read_pending = true;
    impl_->read_done = false;
    impl_->ws.async_read(impl_->buffer, [this](beast::error_code ec, std::size_t) {
      impl_->read_done = true;
      impl_->read_ec = ec;
    });
  }
  impl_->ctx.restart();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!impl_->read_done && std::chrono::steady_clock::now() < deadline) {
    impl_->ctx.run_one_until(deadline);
  }
  if (!impl_->read_done) return false;
  impl_->read_pending = false;
  beast::error_code result = impl_->read_ec;
  if (result) {
    // A close frame may have arrived even when the read ends with a socket
    // error (the server may reset the TCP connection right after its close
    // frame, and the teardown then fails with ENOTCONN): the reason wins.
    if (result == websocket::error::closed || impl_->ws.reason().code != 0) {
      closed_ = CloseInfo{impl_->ws.reason().code, std::string(impl_->ws.reason().reason.data(),
                                                               impl_->ws.reason().reason.size())};
    } else {
      closed_ = CloseInfo{0, result.message()};
    }
    return false;
  }
  ++frames_;
  std::string frame = beast::buffers_to_string(impl_->buffer.data());
  impl_->buffer.consume(impl_->buffer.size());
  std::size_t start = 0;
  while (start <= frame.size()) {
    auto nl = frame.find('\n', start);
    std::string line = frame.substr(start, nl == std::string::npos ? nl : nl - start);
    if (!line.empty()) pending_.push_back(std::move(line));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return true;
}

std::optional<std::string> WsClient::next(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pending_.empty()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !read_frame(left)) {
      if (pending_.empty()) return std::nullopt;
    }
  }
  std::string m = std::move(pending_.front());
  pending_.pop_front();
  return m;
}

std::optional<CloseInfo> WsClient::wait_closed(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!closed_) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pending_.clear();
    read_frame(left);
  }
  return closed_;
}

std::optional<std::string> request(WsClient& c, std::uint32_t id, const std::string& cmd,
                                   std::deque<std::string>* skipped,
                                   std::chrono::milliseconds timeout) {
  c.send(cmd);
  const std::string tag = "{\"id\":" + std::to_string(id) + ",";
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto m = c.next(left);
    if (!m) return std::nullopt;
    if (m->starts_with(tag)) return m;
    if (skipped) skipped->push_back(*m);
  }
}

}  // namespace herald::test
