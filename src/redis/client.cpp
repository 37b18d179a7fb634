#include "redis/client.hpp"

#include <boost/asio/post.hpp>
#include <hiredis/hiredis.h>

#include <algorithm>

#include "core/log.hpp"
#include "redis/connection.hpp"
#include "redis/script.hpp"

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
    : io_(io),
      options_(std::move(options)),
      retry_timer_(io),
      backoff_(options_.reconnect_min, options_.reconnect_max) {}

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
  Subscription& sub = subscriptions_[std::move(channel)];
  sub.on_message = std::move(on_message);
}

void Client::join(const std::string& channel, MessageFn on_message, Done done) {
  auto [it, fresh] = subscriptions_.try_emplace(channel);
  Subscription& sub = it->second;
  sub.on_message = std::move(on_message);
  sub.done = std::move(done);
  if (!fresh && sub.state == Subscription::State::leaving) {
    sub.rejoin = true;  // subscribed again once the UNSUBSCRIBE is confirmed
    return;
  }
  sub.state = Subscription::State::joining;
  if (ready_ && sub_) return send_subscribe(channel, generation_, false);
  // Not connected: subscribed by the next connect; say so now.
  Result r;
  r.error = "redis unavailable at " + address() + ": " + last_error_;
  boost::asio::post(io_, [d = std::move(sub.done), r = std::move(r)]() mutable { d(r); });
  sub.done = nullptr;
}

void Client::leave(const std::string& channel) {
  auto it = subscriptions_.find(channel);
  if (it == subscriptions_.end()) return;
  Subscription& sub = it->second;
  sub.rejoin = false;
  if (sub.state == Subscription::State::leaving) return;
  if (!ready_ || !sub_) {
    subscriptions_.erase(it);  // the next connect does not subscribe it
    return;
  }
  sub.state = Subscription::State::leaving;
  ++sub.attempt;  // a confirmation of the SUBSCRIBE before is stale now
  if (sub.done) {
    Result r;
    r.error = "left before the subscription was confirmed";
    boost::asio::post(io_, [d = std::move(sub.done), r = std::move(r)]() mutable { d(r); });
    sub.done = nullptr;
  }
  // Counted like every command; the confirmation reaches on_channel_reply
  // through the channel's SUBSCRIBE handler.
  round_trips_.fetch_add(1, std::memory_order_relaxed);
  const std::string argv[] = {"UNSUBSCRIBE", channel};
  if (!sub_->command(argv, nullptr)) subscriptions_.erase(it);
}

void Client::on_channel_reply(const std::string& channel, const redisReply* r) {
  auto it = subscriptions_.find(channel);
  if (it == subscriptions_.end()) return;
  Subscription& sub = it->second;
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 || r->element[0]->type != REDIS_REPLY_STRING)
    return;
  const std::string_view kind(r->element[0]->str, r->element[0]->len);
  if (kind == "message") {
    if (sub.state == Subscription::State::leaving || !sub.on_message) return;
    if (r->element[2]->type == REDIS_REPLY_STRING)
      sub.on_message(std::string_view(r->element[2]->str, r->element[2]->len));
  } else if (kind == "unsubscribe" && sub.state == Subscription::State::leaving) {
    if (!sub.rejoin) {
      subscriptions_.erase(it);
      return;
    }
    sub.rejoin = false;
    sub.state = Subscription::State::joining;
    // Posted: hiredis is inside its read callback here.
    boost::asio::post(io_, [this, channel, gen = generation_] {
      auto again = subscriptions_.find(channel);
      if (gen != generation_ || again == subscriptions_.end() ||
          again->second.state != Subscription::State::joining)
        return;
      send_subscribe(channel, gen, false);
    });
  }
}

void Client::send_subscribe(const std::string& channel, std::uint64_t gen, bool counts_for_ready) {
  auto found = subscriptions_.find(channel);
  const std::uint64_t attempt = found == subscriptions_.end() ? 0 : ++found->second.attempt;
  auto confirmed = [this, gen, channel, counts_for_ready, attempt](const Result& r) {
    if (gen != generation_) return;
    auto it = subscriptions_.find(channel);
    Done done;
    // Only the confirmation of the latest SUBSCRIBE counts: an earlier
    // one's (posted) may run after a leave and a rejoin were processed.
    if (it != subscriptions_.end() && it->second.state == Subscription::State::joining &&
        it->second.attempt == attempt) {
      if (r.ok()) it->second.state = Subscription::State::joined;
      done = std::move(it->second.done);
      it->second.done = nullptr;
    }
    if (done) done(r);
    if (!r.ok()) return lost(r.error);
    if (counts_for_ready) connected_one();
  };
  send(*sub_, {{"SUBSCRIBE", channel}}, confirmed,
       [this, channel](const redisReply* r) { on_channel_reply(channel, r); });
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
  cmd_ = Connection::create(io_, options_.host, options_.port, options_.credentials, on_lost);
  sub_ = Connection::create(io_, options_.host, options_.port, options_.credentials, on_lost);
  // Channels left while disconnected are not subscribed again; one joined
  // again meanwhile is.
  std::erase_if(subscriptions_, [](const auto& kv) {
    return kv.second.state == Subscription::State::leaving && !kv.second.rejoin;
  });
  for (auto& [name, sub] : subscriptions_) {
    sub.state = Subscription::State::joining;
    sub.rejoin = false;
  }
  // Steps before ready: both connects, then one confirmation per channel.
  pending_ = 2 + static_cast<int>(subscriptions_.size());
  cmd_->connect(
      options_.connect_timeout,
      [this, gen](const std::optional<Connection::ConnectError>& err) { connect_step(gen, err); });
  sub_->connect(options_.connect_timeout,
                [this, gen](const std::optional<Connection::ConnectError>& err) {
                  const bool up = gen == generation_ && !err;
                  connect_step(gen, err);
                  if (up)
                    for (const auto& [name, sub] : subscriptions_) send_subscribe(name, gen, true);
                });
}

void Client::connect_step(std::uint64_t gen, const std::optional<Connection::ConnectError>& err) {
  if (gen != generation_) return;
  if (err) return lost(err->message, err->refused);
  connected_one();
}

std::optional<std::string> Client::refusal() const {
  std::lock_guard lock(refusal_mutex_);
  return refusal_;
}

void Client::connected_one() {
  if (--pending_ != 0) return;
  ready_ = true;
  backoff_.reset();
  last_error_.clear();
  {
    std::lock_guard lock(refusal_mutex_);
    refusal_.reset();
  }
  log::info("redis ready", {{"addr", address()}});
  if (on_ready_) on_ready_();
}

void Client::lost(const std::string& reason, bool refused) {
  if (!running_) return;
  const bool was_ready = ready_.exchange(false);
  last_error_ = reason;
  if (refused) {
    std::lock_guard lock(refusal_mutex_);
    refusal_ = reason;
  }
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
  const std::chrono::milliseconds wait = backoff_.next();
  log::warn("redis unavailable", {{"addr", address()},
                                  {"error", last_error_},
                                  {"retry_in_ms", static_cast<std::int64_t>(wait.count())}});
  retry_timer_.expires_after(wait);
  retry_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec && running_) connect();
  });
}

namespace {

bool is_noscript(const Command& cmd, const Reply& reply) {
  return reply.is_error() && reply.str.starts_with("NOSCRIPT") && cmd.size() >= 2 &&
         cmd[0] == "EVALSHA";
}

}  // namespace

void Client::execute(std::vector<Command> pipeline, Done done) {
  if (!ready_ || !cmd_) {
    Result r;
    r.error = "redis unavailable at " + address() + ": " + last_error_;
    boost::asio::post(io_, [done = std::move(done), r = std::move(r)]() mutable { done(r); });
    return;
  }
  // Kept until the replies are in, for the NOSCRIPT retry.
  auto kept = std::make_shared<const std::vector<Command>>(std::move(pipeline));
  send(*cmd_, *kept, [this, kept, done = std::move(done)](Result r) mutable {
    if (r.ok()) {
      for (std::size_t i = 0; i < r.replies.size(); ++i) {
        if (is_noscript((*kept)[i], r.replies[i]))
          return retry_noscript(kept, std::move(r), std::move(done));
      }
    }
    done(std::move(r));
  });
}

void Client::retry_noscript(const std::shared_ptr<const std::vector<Command>>& pipeline, Result r,
                            Done done) {
  std::vector<Command> again;
  // Index in `pipeline` of each command of `again`; kSkip for an ASKING.
  constexpr std::size_t kSkip = SIZE_MAX;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < r.replies.size(); ++i) {
    if (!is_noscript((*pipeline)[i], r.replies[i])) continue;
    std::optional<std::string> text = Script::find((*pipeline)[i][1]);
    if (!text) continue;  // not ours: the NOSCRIPT reply stands
    // Redis Cluster: ASKING holds for the next command only, so the EVAL
    // of a command sent after ASKING goes after ASKING again.
    if (i > 0 && (*pipeline)[i - 1].size() == 1 && (*pipeline)[i - 1][0] == "ASKING") {
      again.push_back({"ASKING"});
      at.push_back(kSkip);
    }
    Command eval = (*pipeline)[i];
    eval[0] = "EVAL";
    eval[1] = std::move(*text);
    again.push_back(std::move(eval));
    at.push_back(i);
  }
  if (again.empty() || !ready_ || !cmd_) return done(std::move(r));
  auto first = std::make_shared<Result>(std::move(r));
  send(*cmd_, again, [first, at = std::move(at), done = std::move(done)](Result second) mutable {
    if (!second.ok()) return done(std::move(second));
    for (std::size_t k = 0; k < at.size(); ++k)
      if (at[k] != kSkip) first->replies[at[k]] = std::move(second.replies[k]);
    done(std::move(*first));
  });
}

void Client::send(Connection& conn, const std::vector<Command>& pipeline, Done done,
                  const std::function<void(const redisReply*)>& on_message) {
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
      // `conn` outlives the call: a connection calls its own handlers.
      on_reply = [batch, finish, on_message, c = &conn](const redisReply* r) {
        if (r == nullptr) {
          // Redis's error, when it ended the connection with one: hiredis
          // treats an error answering SUBSCRIBE (NOAUTH) as fatal.
          const std::string why = c->error();
          return finish(batch, "connection lost before SUBSCRIBE was confirmed" +
                                   (why.empty() ? std::string() : " (" + why + ")"));
        }
        if (!batch->confirmed) {
          batch->confirmed = true;
          if (r->type == REDIS_REPLY_ERROR)
            return finish(batch, std::string("SUBSCRIBE: ") + r->str);
          return finish(batch, "");
        }
        on_message(r);
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
