#include "redis/client.hpp"

#include <boost/asio/post.hpp>
#include <hiredis/hiredis.h>

#include <algorithm>

#include "core/log.hpp"
#include "redis/connection.hpp"

namespace herald::redis {
namespace {

// The replies of one pipeline, filled as they arrive. `finished` makes the
// completion happen once: on the last reply, a lost connection or timeout.
struct Batch {
  Batch(boost::asio::io_context& io, std::size_t n, Client::Done d)
      : replies(n), left(n), done(std::move(d)), timer(io) {}
  std::vector<Reply> replies;
  std::size_t left;
  Client::Done done;
  boost::asio::steady_timer timer;
  bool finished = false;
  bool confirmed = false;  // subscriptions: the SUBSCRIBE reply came
};

}  // namespace

Client::Client(boost::asio::io_context& io, Options options)
    : io_(io), options_(std::move(options)), retry_timer_(io) {}

Client::~Client() {
  // Callbacks still queued for old connections compare generation_ and
  // become no-ops. The owner destroys the client on its io thread or after
  // that io_context stopped running.
  running_ = false;
  ++generation_;
  if (cmd_) cmd_->close();
  if (sub_) sub_->close();
}

std::string Client::address() const {
  return options_.host + ":" + std::to_string(options_.port);
}

void Client::subscribe(std::string channel, MessageFn on_message) {
  subscriptions_.push_back({std::move(channel), std::move(on_message)});
}

void Client::start() {
  if (running_) return;
  running_ = true;
  connect();
}

void Client::stop() {
  running_ = false;
  ready_ = false;
  ++generation_;
  retry_timer_.cancel();
  if (cmd_) cmd_->close();
  if (sub_) sub_->close();
  cmd_.reset();
  sub_.reset();
}

void Client::connect() {
  const std::uint64_t gen = ++generation_;
  auto on_lost = [this, gen](const std::string& reason) {
    if (gen == generation_) lost(reason);
  };
  cmd_ = Connection::create(io_, options_.host, options_.port, on_lost);
  sub_ = Connection::create(io_, options_.host, options_.port, on_lost);
  // Steps before ready: both connects, then one confirmation per channel.
  pending_ = 2 + static_cast<int>(subscriptions_.size());
  cmd_->connect(options_.connect_timeout, [this, gen](std::optional<std::string> err) {
    if (gen != generation_) return;
    if (err) return lost(*err);
    connected_one();
  });
  sub_->connect(options_.connect_timeout, [this, gen](std::optional<std::string> err) {
    if (gen != generation_) return;
    if (err) return lost(*err);
    connected_one();
    for (const Subscription& s : subscriptions_) {
      auto confirmed = [this, gen](Result r) {
        if (gen != generation_) return;
        if (!r.ok()) return lost(r.error);
        connected_one();
      };
      send(*sub_, {{"SUBSCRIBE", s.channel}}, confirmed, s.on_message);
    }
  });
}

void Client::connected_one() {
  if (--pending_ != 0) return;
  ready_ = true;
  backoff_ = std::chrono::milliseconds(0);
  last_error_.clear();
  log::info("redis ready", {{"addr", address()}});
  if (on_ready_) on_ready_();
}

void Client::lost(const std::string& reason) {
  if (!running_) return;
  const bool was_ready = ready_.exchange(false);
  last_error_ = reason;
  ++generation_;  // the other connection's late callbacks are stale now
  // Pending pipelines complete with an error (their handlers are posted).
  if (cmd_) cmd_->close();
  if (sub_) sub_->close();
  cmd_.reset();
  sub_.reset();
  if (was_ready && on_down_) on_down_(reason);
  schedule_reconnect();
}

void Client::schedule_reconnect() {
  backoff_ = backoff_.count() == 0 ? options_.reconnect_min
                                   : std::min(backoff_ * 2, options_.reconnect_max);
  log::warn("redis unavailable", {{"addr", address()},
                                  {"error", last_error_},
                                  {"retry_in_ms", static_cast<std::int64_t>(backoff_.count())}});
  retry_timer_.expires_after(backoff_);
  retry_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec && running_) connect();
  });
}

void Client::execute(std::vector<Command> pipeline, Done done) {
  if (!ready_ || !cmd_) {
    Result r;
    r.error = "redis unavailable at " + address() + ": " + last_error_;
    boost::asio::post(io_, [done = std::move(done), r = std::move(r)]() mutable { done(r); });
    return;
  }
  send(*cmd_, std::move(pipeline), std::move(done));
}

void Client::send(Connection& conn, std::vector<Command> pipeline, Done done,
                  MessageFn on_message) {
  // The single counting point: one call, one round trip.
  round_trips_.fetch_add(1, std::memory_order_relaxed);
  auto batch = std::make_shared<Batch>(io_, pipeline.size(), std::move(done));
  auto finish = [this](const std::shared_ptr<Batch>& b, std::string error) {
    if (b->finished) return;
    b->finished = true;
    b->timer.cancel();
    Result r{std::move(error), std::move(b->replies)};
    // Posted: a handler never runs inside a hiredis callback.
    boost::asio::post(io_, [done = std::move(b->done), r = std::move(r)]() mutable { done(r); });
  };
  for (std::size_t i = 0; i < pipeline.size(); ++i) {
    Connection::ReplyFn on_reply;
    if (on_message) {
      // Subscriber mode: the first reply confirms, later ones are messages
      // ["message", channel, payload]; nullptr ends the subscription.
      on_reply = [batch, finish, on_message](const redisReply* r) {
        if (r == nullptr) return finish(batch, "connection lost before SUBSCRIBE was confirmed");
        if (!batch->confirmed) {
          batch->confirmed = true;
          if (r->type == REDIS_REPLY_ERROR)
            return finish(batch, std::string("SUBSCRIBE: ") + r->str);
          return finish(batch, "");
        }
        if (r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
            r->element[2]->type == REDIS_REPLY_STRING)
          on_message(std::string_view(r->element[2]->str, r->element[2]->len));
      };
    } else {
      on_reply = [batch, finish, i](const redisReply* r) {
        if (r == nullptr) return finish(batch, "connection lost before the reply");
        if (batch->finished) return;
        batch->replies[i] = from_hiredis(r);
        if (--batch->left == 0) finish(batch, "");
      };
    }
    if (!conn.command(pipeline[i], std::move(on_reply), static_cast<bool>(on_message))) {
      return finish(batch, "redis at " + address() + " refused the command (not connected)");
    }
  }
  batch->timer.expires_after(options_.command_timeout);
  batch->timer.async_wait([this, batch, finish, gen = generation_](boost::system::error_code ec) {
    if (ec || batch->finished) return;
    const std::string why =
        "no reply within " + std::to_string(options_.command_timeout.count()) + " ms";
    finish(batch, why);
    // A server that stopped answering: drop the connection and reconnect.
    if (gen == generation_) lost(why);
  });
}

}  // namespace herald::redis
