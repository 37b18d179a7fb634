// The byte stream a client connection arrives on: plain TCP, or TLS over
// it when the listener has a certificate (tls/tls_credentials.hpp). One
// connection class serves both: the HTTP session and the WebSocket
// handshake run Beast's algorithms on whichever alternative holds
// (std::visit), so each I/O site is written once and the plain path pays
// no virtual call and no TLS code.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <variant>

namespace herald::gateway {

using PlainStream = boost::beast::tcp_stream;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
using ClientStream = std::variant<PlainStream, TlsStream>;

// The TCP stream under either (its socket, its timeouts).
[[nodiscard]] inline boost::beast::tcp_stream& tcp_layer(ClientStream& stream) {
  return std::visit(
      [](auto& s) -> boost::beast::tcp_stream& { return boost::beast::get_lowest_layer(s); },
      stream);
}

}  // namespace herald::gateway
