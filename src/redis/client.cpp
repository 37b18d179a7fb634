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
      ready_timer_(io),
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
  // Port 0: not located yet (options.locate); the host names what is asked for.
  if (options_.port == 0) return options_.host;
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
  if (sub.done) {
    Result r;
    r.error = "left before the subscription was confirmed";
    boost::asio::post(io_, [d = std::move(sub.done), r = std::move(r)]() mutable { d(r); });
    sub.done = nullptr;
  }
  // Nothing to undo on the live connection: there is none, or no SUBSCRIBE
  // of the channel went out on it. Redis would answer an UNSUBSCRIBE all the
  // same, but hiredis routes the answer by the channel's SUBSCRIBE handler,
  // which it has none of: dropped, the channel would stay leaving for ever,
  // and a join of it would wait for that answer.
  if (!ready_ || !sub_ || sub.sent_on != generation_) {
    subscriptions_.erase(it);  // the next connect does not subscribe it
    return;
  }
  sub.state = Subscription::State::leaving;
  ++sub.attempt;  // a confirmation of the SUBSCRIBE before is stale now
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
  if (found != subscriptions_.end()) found->second.sent_on = gen;
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
  ready_timer_.cancel();
  if (cmd_) cmd_->close();
  if (sub_) sub_->close();
  cmd_.reset();
  sub_.reset();
}

void Client::connect() {
  const std::uint64_t gen = ++generation_;
  if (!options_.locate) return connect_now();
  options_.locate([this, gen](Located where) {
    if (gen != generation_ || !running_) return;
    if (!where.error.empty()) return lost(where.error);
    if (where.host != options_.host || where.port != options_.port) {
      log::info("redis: connecting to the located master",
                {{"was", address()}, {"now", where.host + ":" + std::to_string(where.port)}});
    }
    options_.host = std::move(where.host);
    options_.port = where.port;
    connect_now();
  });
}

void Client::connect_now() {
  const std::uint64_t gen = generation_;
  auto on_lost = [this, gen](const std::string& reason) {
    if (gen == generation_) lost(reason);
  };
  reloading_scripts_ = false;
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
  // Steps before ready: both connects (the command one with its scripts
  // and INFO), then one confirmation per channel the subscriber connection
  // subscribes once up (counted then: channels come and go meanwhile).
  pending_ = 2;
  const auto deadline = options_.connect_timeout + options_.command_timeout;
  ready_timer_.expires_after(deadline);
  ready_timer_.async_wait([this, gen, deadline](boost::system::error_code ec) {
    if (ec || gen != generation_ || ready_) return;
    lost("not ready within " + std::to_string(deadline.count()) +
         " ms of connecting (connect_timeout + command_timeout): the server accepted but did "
         "not answer the connect's SCRIPT LOAD, INFO or SUBSCRIBE");
  });
  cmd_->connect(options_.connect_timeout,
                [this, gen](const std::optional<Connection::ConnectError>& err) {
                  if (gen != generation_) return;
                  if (err) return connect_step(gen, err);
                  prepare(gen);
                });
  sub_->connect(options_.connect_timeout,
                [this, gen](const std::optional<Connection::ConnectError>& err) {
                  if (gen == generation_ && !err) {
                    pending_ += static_cast<int>(subscriptions_.size());
                    for (const auto& [name, sub] : subscriptions_) send_subscribe(name, gen, true);
                  }
                  connect_step(gen, err);
                });
}

namespace {

// `key:value` of an INFO section's text; empty when absent.
std::string info_field(std::string_view info, std::string_view key) {
  std::size_t at = 0;
  while (at < info.size()) {
    std::size_t end = info.find('\n', at);
    if (end == std::string_view::npos) end = info.size();
    std::string_view line = info.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ':')
      return std::string(line.substr(key.size() + 1));
    at = end + 1;
  }
  return {};
}

}  // namespace

void Client::prepare(std::uint64_t gen) {
  // The scripts' loads and the INFO leave in one write ahead of any
  // caller's command (the client is not ready yet, so none is sent).
  struct Steps {
    std::size_t left;
    std::string error;
    std::string replid;
  };
  auto steps = std::make_shared<Steps>(Steps{options_.scripts.size() + 1, {}, {}});
  // Posted: lost() and connected_one() may free the connection whose
  // hiredis callback this is.
  auto step = [this, gen, steps](std::string error) {
    if (!error.empty() && steps->error.empty()) steps->error = std::move(error);
    if (--steps->left != 0) return;
    boost::asio::post(io_, [this, gen, steps] {
      if (gen != generation_) return;
      if (!steps->error.empty()) return lost(steps->error);
      replid_ = steps->replid;
      connected_one();
    });
  };
  const std::string where = "redis at " + address();
  for (const Script* script : options_.scripts) {
    const std::vector<std::string> argv = {"SCRIPT", "LOAD", script->text()};
    const bool sent = cmd_->command(argv, [step, where](const redisReply* r) {
      if (r == nullptr) return step("connection lost while loading the scripts");
      if (r->type == REDIS_REPLY_ERROR) return step(where + " refused SCRIPT LOAD: " + r->str);
      step({});
    });
    if (!sent) return lost("cannot send SCRIPT LOAD to " + address());
  }
  const std::vector<std::string> info = {"INFO", "replication"};
  const bool sent = cmd_->command(info, [step, steps, where](const redisReply* r) {
    if (r == nullptr) return step("connection lost while reading INFO replication");
    if (r->type != REDIS_REPLY_STRING)
      return step(where + " answered INFO replication with " + from_hiredis(r).describe());
    const std::string_view text(r->str, r->len);
    const std::string role = info_field(text, "role");
    if (role != "master") {
      return step(where + " is not a master (role:" + role + ", its master " +
                  info_field(text, "master_host") + ":" + info_field(text, "master_port") +
                  "): writes need the master; point the address at it, or use topology "
                  "\"sentinel\" to follow failovers");
    }
    steps->replid = info_field(text, "master_replid");
    step({});
  });
  if (!sent) lost("cannot send INFO to " + address());
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
  ready_timer_.cancel();
  ready_ = true;
  backoff_.reset();
  last_error_.clear();
  {
    std::lock_guard lock(refusal_mutex_);
    refusal_.reset();
  }
  log::info("redis ready", {{"addr", address()}});
  // Channels joined while connecting, after the subscriber connection sent
  // its SUBSCRIBEs: registered (join() said so), subscribed now.
  for (auto& [name, sub] : subscriptions_) {
    if (sub.state == Subscription::State::joining && sub.sent_on != generation_)
      send_subscribe(name, generation_, false);
  }
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

void Client::execute(const std::vector<Command>& pipeline, Done done) {
  if (!ready_ || !cmd_) {
    Result r;
    r.error = "redis unavailable at " + address() + ": " + last_error_;
    boost::asio::post(io_, [done = std::move(done), r = std::move(r)]() mutable { done(r); });
    return;
  }
  send(*cmd_, pipeline, [this, gen = generation_, done = std::move(done)](Result r) mutable {
    bool noscript = false;
    bool readonly = false;
    for (Reply& reply : r.replies) {
      if (!reply.is_error()) continue;
      if (reply.str.starts_with("NOSCRIPT")) {
        noscript = true;
        reply.str = "NOSCRIPT: the script cache of " + address() +
                    " was emptied while connected (SCRIPT FLUSH); the command did not run and "
                    "the scripts are being loaded again: try again";
      } else if (reply.str.starts_with("READONLY")) {
        readonly = true;
      }
    }
    if (noscript && gen == generation_) reload_scripts();
    done(std::move(r));
    if (readonly && gen == generation_) {
      lost("redis at " + address() +
           " answered READONLY: it is a replica now (a failover); reconnecting");
    }
  });
}

void Client::reload_scripts() {
  if (reloading_scripts_ || options_.scripts.empty() || !ready_ || !cmd_) return;
  reloading_scripts_ = true;
  std::vector<Command> loads;
  for (const Script* script : options_.scripts) loads.push_back({"SCRIPT", "LOAD", script->text()});
  log::warn("redis: script cache emptied while connected; loading the scripts again",
            {{"addr", address()}});
  send(*cmd_, loads, [this, gen = generation_](const Result&) {
    if (gen == generation_) reloading_scripts_ = false;
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
