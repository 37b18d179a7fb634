#include "support/http_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <cctype>

namespace herald::test {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

HttpReply http_get(const std::string& host, std::uint16_t port, const std::string& target,
                   std::chrono::milliseconds timeout) {
  return http_request(host, port, HttpCall{"GET", target, {}, {}}, timeout);
}

HttpReply http_request(const std::string& host, std::uint16_t port, const HttpCall& call,
                       std::chrono::milliseconds timeout) {
  asio::io_context ctx;
  beast::tcp_stream stream(ctx);
  stream.expires_after(timeout);
  stream.connect(tcp::endpoint(asio::ip::make_address(host), port));
  http::request<http::string_body> req{http::string_to_verb(call.method), call.target, 11};
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "herald-test");
  for (const auto& [name, value] : call.headers) req.set(name, value);
  req.body() = call.body;
  if (!call.body.empty() || req.method() == http::verb::post) req.prepare_payload();
  // Asynchronous write and read: the stream's timeout bounds only those, so
  // a server that never answers fails the call (beast::error::timeout)
  // instead of hanging the test.
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  beast::error_code ec;
  http::async_write(stream, req, [&](beast::error_code e, std::size_t) {
    ec = e;
    if (!e)
      http::async_read(stream, buffer, res, [&](beast::error_code e2, std::size_t) { ec = e2; });
  });
  ctx.run();
  if (ec) throw beast::system_error(ec, "http_request " + call.method + " " + call.target);
  HttpReply reply;
  reply.status = res.result_int();
  reply.body = res.body();
  for (const auto& f : res) {
    std::string name(f.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(f.value());
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return reply;
}

HttpReply api_post(std::uint16_t port, const std::string& target, const std::string& body,
                   const std::string& api_key, std::chrono::milliseconds timeout) {
  HttpCall call{"POST", target, {{"Content-Type", "application/json"}}, body};
  if (!api_key.empty()) call.headers["Authorization"] = "apikey " + api_key;
  return http_request("127.0.0.1", port, call, timeout);
}

std::string raw_exchange(const std::string& host, std::uint16_t port, const std::string& bytes,
                         std::chrono::milliseconds timeout) {
  return raw_exchange_until_close(host, port, bytes, timeout).bytes;
}

RawExchange raw_exchange_until_close(const std::string& host, std::uint16_t port,
                                     const std::string& bytes, std::chrono::milliseconds timeout) {
  asio::io_context ctx;
  beast::tcp_stream stream(ctx);
  stream.expires_after(timeout);
  stream.connect(tcp::endpoint(asio::ip::make_address(host), port));
  beast::error_code ec;
  asio::write(stream, asio::buffer(bytes), ec);
  RawExchange out;
  char buf[4096];
  // Asynchronous reads: the stream's timeout bounds only those (a blocking
  // read_some would wait for ever on a server that never hangs up).
  for (;;) {
    std::size_t n = 0;
    stream.async_read_some(asio::buffer(buf), [&](beast::error_code e, std::size_t got) {
      ec = e;
      n = got;
    });
    ctx.restart();
    ctx.run();
    out.bytes.append(buf, n);
    if (ec) break;
  }
  out.closed_by_server = ec == asio::error::eof || ec == asio::error::connection_reset;
  return out;
}

double metric_value(const std::string& exposition, const std::string& series) {
  const std::string key = "\n" + series + " ";
  auto p = exposition.find(key);
  if (p == std::string::npos) return -1;
  return std::stod(exposition.substr(p + key.size()));
}

}  // namespace herald::test
