#include "gateway/proxy/backend_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <chrono>
#include <optional>

#include "core/log.hpp"

namespace herald::gateway::proxy {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace beast_http = beast::http;

// One request. Owned by the handler in flight (shared_ptr), so it lives
// exactly as long as the asynchronous operation chain; it refers to its
// BackendClient, which lives in the shard's state and outlives the shard's
// io_context and with it every handler.
struct BackendClient::Exchange : std::enable_shared_from_this<Exchange> {
  Exchange(BackendClient& c, InFlightLimit::Ticket t, Done d)
      : client(c), ticket(std::move(t)), done(std::move(d)) {}

  BackendClient& client;
  InFlightLimit::Ticket ticket;
  Done done;
  beast_http::request<beast_http::string_body> request;
  std::unique_ptr<beast::tcp_stream> stream;
  bool reused = false;  // the stream served an earlier request
  beast::flat_buffer buffer;
  std::optional<beast_http::response_parser<beast_http::string_body>> parser;
  std::chrono::steady_clock::time_point started;
  std::chrono::steady_clock::time_point deadline;

  void connect() {
    reused = false;
    stream = std::make_unique<beast::tcp_stream>(client.ctx_);
    stream->expires_at(deadline);
    stream->async_connect(
        client.hook_.endpoints,
        [self = shared_from_this()](beast::error_code ec, const asio::ip::tcp::endpoint&) {
          if (ec) return self->fail(ec, "connect");
          self->send();
        });
  }

  void send() {
    stream->expires_at(deadline);
    beast_http::async_write(*stream, request,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->lost(ec, "write");
                              self->receive();
                            });
  }

  void receive() {
    parser.emplace();
    parser->body_limit(client.max_answer_bytes_);
    buffer.clear();
    beast_http::async_read(*stream, buffer, *parser,
                           [self = shared_from_this()](beast::error_code ec, std::size_t) {
                             if (ec) return self->lost(ec, "read");
                             self->answered();
                           });
  }

  // The stream failed after connecting. A reused connection the backend
  // had closed while idle fails this way before any byte of an answer:
  // send again on a new connection (once: a fresh one is never retried).
  void lost(beast::error_code ec, const char* step) {
    const bool nothing_read = !parser || !parser->got_some();
    if (reused && nothing_read && ec != beast::error::timeout) {
      stream.reset();
      return connect();
    }
    fail(ec, step);
  }

  void fail(beast::error_code ec, const char* step) {
    stream.reset();
    if (ec == beast::error::timeout) {
      return finish(FailureAnswer{Failure::timeout,
                                  "no answer within proxy.timeout (" +
                                      std::to_string(client.hook_.timeout.count()) + " ms)"});
    }
    if (ec == beast_http::error::body_limit) {
      return finish(FailureAnswer{Failure::bad_answer,
                                  "answer body over " + std::to_string(client.max_answer_bytes_) +
                                      " bytes (http.max_body_bytes)"});
    }
    // Closed before (end_of_stream) or during (partial_message) the answer:
    // the backend went away, it did not answer badly.
    const bool closed =
        ec == beast_http::error::end_of_stream || ec == beast_http::error::partial_message;
    if (!closed &&
        ec.category() == beast_http::make_error_code(beast_http::error::bad_version).category()) {
      return finish(FailureAnswer{Failure::bad_answer, "not HTTP: " + ec.message()});
    }
    finish(FailureAnswer{Failure::unavailable, std::string(step) + ": " + ec.message()});
  }

  void answered() {
    beast_http::response<beast_http::string_body> response = parser->release();
    if (response.keep_alive() && !client.stopped_) {
      stream->expires_never();
      client.idle_.push_back(std::move(stream));
    } else {
      stream.reset();
    }
    finish(client.classifier_.classify(response.result_int(), response.body()));
  }

  void finish(BackendAnswer answer) {
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
    client.hook_.duration->observe(took.count());
    if (const auto* f = std::get_if<FailureAnswer>(&answer)) {
      client.hook_.error(f->kind).inc();
      log::debug(
          "backend request failed",
          {{"hook", client.hook_.name}, {"kind", failure_kind(f->kind)}, {"detail", f->detail}});
    }
    // The slot first: `done` may post the next request.
    ticket = InFlightLimit::Ticket{};
    Done d = std::move(done);
    d(std::move(answer));
  }
};

BackendClient::BackendClient(asio::io_context& ctx, const Hook& hook, InFlightLimit& limit,
                             std::uint64_t max_answer_bytes)
    : ctx_(ctx), hook_(hook), limit_(limit), max_answer_bytes_(max_answer_bytes) {}

BackendClient::~BackendClient() = default;

void BackendClient::stop() {
  stopped_ = true;
  idle_.clear();
}

void BackendClient::post(std::string json, Done done) {
  hook_.requests->inc();
  InFlightLimit::Ticket ticket = limit_.try_acquire();
  if (!ticket) {
    hook_.error(Failure::busy).inc();
    return done(FailureAnswer{Failure::busy, "proxy.max_in_flight (" +
                                                 std::to_string(limit_.max()) +
                                                 ") requests in flight on this node"});
  }
  auto ex = std::make_shared<Exchange>(*this, std::move(ticket), std::move(done));
  ex->request.method(beast_http::verb::post);
  ex->request.target(hook_.url.target);
  ex->request.version(11);
  ex->request.set(beast_http::field::host, hook_.url.host_header);
  ex->request.set(beast_http::field::content_type, "application/json");
  ex->request.set(beast_http::field::user_agent, "heraldd/" HERALD_VERSION);
  ex->request.keep_alive(true);
  ex->request.body() = std::move(json);
  ex->request.prepare_payload();
  ex->started = std::chrono::steady_clock::now();
  ex->deadline = ex->started + hook_.timeout;
  if (idle_.empty()) return ex->connect();
  ex->stream = std::move(idle_.back());
  idle_.pop_back();
  ex->reused = true;
  ex->send();
}

}  // namespace herald::gateway::proxy
