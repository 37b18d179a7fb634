#include "redis/sentinel.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <hiredis/hiredis.h>

#include <charconv>

#include "redis/connection.hpp"

namespace herald::redis {

// One locate: the Sentinels tried so far, the current one's connection and
// deadline, and every reason for the message when none answers.
struct Sentinel::Ask {
  explicit Ask(boost::asio::io_context& io) : timer(io) {}
  std::function<void(Located)> done;
  std::size_t tried = 0;
  std::uint64_t attempt = 0;  // bumped per Sentinel; stale callbacks compare it
  std::shared_ptr<Connection> conn;
  boost::asio::steady_timer timer;
  std::string reasons;
};

Sentinel::Sentinel(boost::asio::io_context& io, std::vector<config::Endpoint> sentinels,
                   std::string master_name, std::chrono::milliseconds timeout, std::string section)
    : io_(io),
      sentinels_(std::move(sentinels)),
      master_name_(std::move(master_name)),
      timeout_(timeout),
      section_(std::move(section)) {}

void Sentinel::locate(std::function<void(Located)> done) {
  auto ask = std::make_shared<Ask>(io_);
  ask->done = std::move(done);
  boost::asio::post(io_, [this, ask] { ask_next(ask); });
}

namespace {

// Closed from a posted handler: never inside the hiredis callback that
// carries its reply.
void close_later(boost::asio::io_context& io, const std::shared_ptr<Connection>& conn) {
  if (conn) boost::asio::post(io, [conn] { conn->close(); });
}

}  // namespace

void Sentinel::skip(const std::shared_ptr<Ask>& ask, std::size_t k, const std::string& why) {
  ask->reasons += (ask->reasons.empty() ? "" : "; ") + sentinels_[k].to_string() + " " + why;
  close_later(io_, ask->conn);
  ask->conn.reset();
  boost::asio::post(io_, [this, ask] { ask_next(ask); });
}

void Sentinel::ask_next(const std::shared_ptr<Ask>& ask) {
  ask->timer.cancel();
  if (ask->tried == sentinels_.size()) {
    return ask->done(Located{{},
                             0,
                             section_ + ".sentinels: no Sentinel named the master '" +
                                 master_name_ + "' (" + ask->reasons + ")"});
  }
  const std::size_t k = (preferred_ + ask->tried) % sentinels_.size();
  ++ask->tried;
  const std::uint64_t attempt = ++ask->attempt;
  const config::Endpoint& at = sentinels_[k];
  ask->conn = Connection::create(io_, at.host, at.port, {}, [](const std::string&) {});
  ask->timer.expires_after(timeout_);
  ask->timer.async_wait([this, ask, k, attempt](boost::system::error_code ec) {
    if (ec || attempt != ask->attempt) return;
    skip(ask, k, "did not answer within " + std::to_string(timeout_.count()) + " ms");
  });
  ask->conn->connect(
      timeout_, [this, ask, k, attempt](const std::optional<Connection::ConnectError>& err) {
        if (attempt != ask->attempt) return;
        if (err) return skip(ask, k, "unreachable: " + err->message);
        const std::vector<std::string> argv = {"SENTINEL", "get-master-addr-by-name", master_name_};
        const bool sent = ask->conn->command(argv, [this, ask, k, attempt](const redisReply* r) {
          if (attempt != ask->attempt) return;
          if (r == nullptr) return skip(ask, k, "closed the connection");
          if (r->type == REDIS_REPLY_NIL) return skip(ask, k, "does not know that master");
          if (r->type == REDIS_REPLY_ERROR) return skip(ask, k, "answered " + std::string(r->str));
          std::uint16_t port = 0;
          const bool pair = r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                            r->element[0]->type == REDIS_REPLY_STRING &&
                            r->element[1]->type == REDIS_REPLY_STRING;
          if (pair) {
            const char* p = r->element[1]->str;
            const auto [end, ec] = std::from_chars(p, p + r->element[1]->len, port);
            if (ec != std::errc() || end != p + r->element[1]->len || port == 0) port = 0;
          }
          if (port == 0) return skip(ask, k, "answered something that is not host, port");
          Located found{std::string(r->element[0]->str, r->element[0]->len), port, {}};
          preferred_ = k;
          ++ask->attempt;  // the timer's wait is stale now
          ask->timer.cancel();
          close_later(io_, ask->conn);
          ask->conn.reset();
          boost::asio::post(
              io_, [ask, found = std::move(found)]() mutable { ask->done(std::move(found)); });
        });
        if (!sent) skip(ask, k, "refused the command");
      });
}

}  // namespace herald::redis
