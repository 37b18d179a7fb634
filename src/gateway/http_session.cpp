#include "gateway/http_session.hpp"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "core/log.hpp"
#include "gateway/sse/sse_session.hpp"
#include "gateway/sse/stream_request.hpp"
#include "gateway/ws/ws_session.hpp"

namespace herald::gateway {
namespace beast = boost::beast;
namespace beast_http = beast::http;

HttpSession::HttpSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease,
                         ServerState& state, unsigned shard)
    : stream_(std::move(stream)), state_(state), shard_(shard), lease_(std::move(lease)) {
  state_.shards[shard_]->http_sessions.insert(this);
}

HttpSession::~HttpSession() {
  state_.shards[shard_]->http_sessions.erase(this);
  // An upgraded connection is counted by its WsSession from then on.
  if (!upgraded_) state_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void HttpSession::start() {
  if (state_.draining.load(std::memory_order_relaxed)) return close();
  if (std::holds_alternative<TlsStream>(stream_)) return handshake();
  read_request();
}

void HttpSession::handshake() {
  tcp_layer(stream_).expires_after(state_.options.client.handshake_timeout);
  std::get<TlsStream>(stream_).async_handshake(
      boost::asio::ssl::stream_base::server, [self = shared_from_this()](beast::error_code ec) {
        if (ec) {
          // A client speaking plain HTTP to a TLS port, a bad certificate
          // on its side, a timeout: nothing to answer in TLS.
          log::debug("tls handshake failed", {{"shard", self->shard_}, {"error", ec.message()}});
          self->state_.tls_handshake_failures->inc();
          return self->close();
        }
        self->read_request();
      });
}

void HttpSession::read_request() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(state_.options.http.max_header_bytes));
  parser_->body_limit(state_.options.http.max_body_bytes);
  tcp_layer(stream_).expires_after(state_.options.http.idle_timeout);
  reading_ = true;
  std::visit(
      [this](auto& s) {
        beast_http::async_read(
            s, buffer_, *parser_,
            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
      },
      stream_);
}

void HttpSession::on_read(beast::error_code ec) {
  reading_ = false;
  if (ec == beast_http::error::end_of_stream || ec == beast::error::timeout ||
      ec == boost::asio::error::operation_aborted || ec == boost::asio::error::connection_reset ||
      ec == boost::asio::error::eof || ec == boost::asio::ssl::error::stream_truncated) {
    return close();
  }
  // An error from here on refuses the request mid-stream: the client may
  // still be sending. Close lingering (see linger_then_close) so it reads
  // our answer. A request read whole keeps the connection alive.
  linger_ = ec.failed();
  if (ec == beast_http::error::header_limit) {
    send(http::make_error_response(
             beast_http::status::request_header_fields_too_large, "header_too_large",
             "request headers exceed http.max_header_bytes (" +
                 std::to_string(state_.options.http.max_header_bytes) + " bytes)"),
         false);
    return;
  }
  if (ec == beast_http::error::body_limit) {
    send(http::make_error_response(beast_http::status::payload_too_large, "body_too_large",
                                   "request body exceeds http.max_body_bytes (" +
                                       std::to_string(state_.options.http.max_body_bytes) +
                                       " bytes)"),
         false);
    return;
  }
  if (ec) {
    // Any other HTTP parse failure: the stream cannot be trusted past this
    // point, so answer 400 and close. Socket errors just close.
    if (ec.category() == beast_http::make_error_code(beast_http::error::bad_method).category()) {
      send(http::make_error_response(beast_http::status::bad_request, "bad_request",
                                     "malformed HTTP request: " + ec.message()),
           false);
      return;
    }
    log::debug("http read failed", {{"shard", shard_}, {"error", ec.message()}});
    linger_ = false;
    return close();
  }
  http::HttpRequest request = parser_->release();
  if (auto refusal = state_.origin_policy.refusal(request[beast_http::field::origin],
                                                  request[beast_http::field::host])) {
    // Refused before anything reads the request: no upgrade, no route. The
    // connection stays usable unless it asked for an upgrade (whose client
    // expects the socket to change hands or close).
    log::debug("request refused by the origin policy",
               {{"shard", shard_}, {"why", refusal->message}});
    send(http::make_error_response(beast_http::status::forbidden, refusal->code, refusal->message,
                                   request.version()),
         request.keep_alive() && !beast::websocket::is_upgrade(request) &&
             !state_.draining.load(std::memory_order_relaxed));
    return;
  }
  if (beast::websocket::is_upgrade(request)) {
    std::string_view path = request.target().substr(0, request.target().find('?'));
    std::size_t endpoint = 0;
    while (endpoint < state_.ws_endpoints.size() && state_.ws_endpoints[endpoint].path != path) {
      ++endpoint;
    }
    if (endpoint == state_.ws_endpoints.size()) {
      send(http::make_error_response(beast_http::status::not_found, "not_found",
                                     "WebSocket clients connect to /ws", request.version()),
           false);
      return;
    }
    if (state_.draining.load(std::memory_order_relaxed)) {
      send(http::make_error_response(beast_http::status::service_unavailable, "draining",
                                     "server is shutting down", request.version()),
           false);
      return;
    }
    // Hand the socket to a WebSocket session on this same shard; this HTTP
    // session ends when the last reference to it goes (now).
    upgraded_ = true;
    tcp_layer(stream_).expires_never();
    auto session = std::make_shared<ws::WsSession>(std::move(stream_), std::move(lease_), state_,
                                                   shard_, endpoint);
    session->start(request);
    return;
  }
  const unsigned version = request.version();
  const bool keep_alive = request.keep_alive();
  if (sse::is_stream_request(request)) return start_event_stream(request);
  state_.router.dispatch(
      request, shard_,
      [self = shared_from_this(), version, keep_alive](http::HttpResponse response) {
        response.version(version);
        self->send(std::move(response),
                   keep_alive && !self->state_.draining.load(std::memory_order_relaxed));
      });
}

void HttpSession::start_event_stream(const http::HttpRequest& request) {
  const bool keep_alive = request.keep_alive() && !state_.draining.load(std::memory_order_relaxed);
  if (state_.draining.load(std::memory_order_relaxed)) {
    return send(http::make_error_response(beast_http::status::service_unavailable, "draining",
                                          "server is shutting down", request.version()),
                false);
  }
  auto checked = sse::read_stream_request(request, state_);
  if (auto* refusal = std::get_if<http::HttpResponse>(&checked)) {
    return send(std::move(*refusal), keep_alive);
  }
  // The socket goes to the stream's session, as on a WebSocket upgrade.
  upgraded_ = true;
  tcp_layer(stream_).expires_never();
  auto stream =
      std::make_shared<sse::SseSession>(std::move(stream_), std::move(lease_), state_, shard_,
                                        std::get<sse::StreamRequest>(std::move(checked)));
  stream->start(request.version());
}

void HttpSession::send(http::HttpResponse response, bool keep_alive) {
  state_.count_response(response.result_int());
  response.keep_alive(keep_alive);
  response_.emplace(std::move(response));
  tcp_layer(stream_).expires_after(state_.options.http.idle_timeout);
  std::visit(
      [this, keep_alive](auto& s) {
        beast_http::async_write(
            s, *response_,
            [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
              self->on_write(keep_alive, ec);
            });
      },
      stream_);
}

void HttpSession::on_write(bool keep_alive, beast::error_code ec) {
  response_.reset();
  // A last response with more bytes already sent behind it (pipelined
  // after "Connection: close") lingers too, or a RST could destroy it.
  if (!ec && (linger_ || (!keep_alive && buffer_.size() > 0))) return linger_then_close();
  if (ec || !keep_alive || state_.draining.load(std::memory_order_relaxed)) return close();
  read_request();
}

void HttpSession::linger_then_close() {
  // Closing a socket with unread input makes the kernel send RST, which can
  // destroy our error response before the client reads it. So: send FIN,
  // then read and discard until the client closes, for at most one second.
  beast::error_code ignored;
  tcp_layer(stream_).socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  tcp_layer(stream_).expires_after(std::chrono::seconds(1));  // the whole linger, not per read
  discard_some();
}

void HttpSession::discard_some() {
  discard_.consume(discard_.size());
  // Raw bytes, under TLS too: they are discarded, and what matters is
  // reading until the client closes.
  tcp_layer(stream_).async_read_some(discard_.prepare(4096),
                                     [self = shared_from_this()](beast::error_code e, std::size_t) {
                                       if (e) return self->close();
                                       self->discard_some();
                                     });
}

void HttpSession::drain() {
  // Idle: a read is pending and not one byte of a request has arrived.
  if (reading_ && buffer_.size() == 0 && parser_ && !parser_->got_some()) {
    beast::error_code ignored;
    tcp_layer(stream_).socket().cancel(ignored);  // on_read sees operation_aborted and closes
  }
}

void HttpSession::close() {
  auto* tls = std::get_if<TlsStream>(&stream_);
  if (tls != nullptr && !tls_closing_ && tcp_layer(stream_).socket().is_open()) {
    // TLS ends with close_notify, so that a client can tell our end of the
    // response from a cut connection; bounded, a client need not answer.
    tls_closing_ = true;
    tcp_layer(stream_).expires_after(std::chrono::seconds(1));
    tls->async_shutdown([self = shared_from_this()](beast::error_code) { self->close(); });
    return;
  }
  beast::error_code ignored;
  tcp_layer(stream_).socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  tcp_layer(stream_).socket().close(ignored);
}

}  // namespace herald::gateway
