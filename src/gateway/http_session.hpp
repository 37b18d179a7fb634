// One HTTP/1.1 connection: read a request (bounded by the header and body
// limits and the idle timeout), answer it through the router, repeat while
// keep-alive holds. Lives on one shard; every member function runs on that
// shard's thread. Over TLS the session first completes the TLS handshake
// (within client.handshake_timeout); everything after is the same.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>

#include <memory>
#include <optional>

#include "gateway/client_stream.hpp"
#include "gateway/http/router.hpp"
#include "gateway/limits/connections_per_ip.hpp"
#include "gateway/server_state.hpp"

namespace herald::gateway {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // `lease`: the connection's slot of server.max_connections_per_ip, held
  // until it closes (or handed to its WsSession on upgrade, or its SSE
  // stream). `stream` holds the accepted socket, alone or under a TLS
  // stream.
  HttpSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease, ServerState& state,
              unsigned shard);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  void start();
  // Server shutdown: close now if waiting for a request that has not begun;
  // otherwise finish the current request and close after its response.
  void drain();

 private:
  // TLS only: the server's side of the handshake, then the first request.
  void handshake();
  void read_request();
  void on_read(boost::beast::error_code ec);
  // GET /sse: refused with an HTTP error, or the socket handed to an
  // event stream (sse/sse_session.hpp).
  void start_event_stream(const http::HttpRequest& request);
  // keep_alive false: the connection closes once the response is written
  // (after a request that left the stream in an unknown state, or on drain).
  void send(http::HttpResponse response, bool keep_alive);
  void on_write(bool keep_alive, boost::beast::error_code ec);
  void linger_then_close();
  void discard_some();
  void close();

  ClientStream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::optional<http::HttpResponse> response_;  // alive until its write completes
  ServerState& state_;
  unsigned shard_;
  boost::beast::flat_buffer discard_;  // lingering close reads into it
  bool reading_ = false;
  bool linger_ = false;
  bool upgraded_ = false;     // the socket now belongs to a WsSession or an SSE stream
  bool tls_closing_ = false;  // close_notify sent (or being sent)
  limits::ConnectionsPerIp::Lease lease_;
};

}  // namespace herald::gateway
