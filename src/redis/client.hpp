// The Redis client every Herald module uses: two hiredis connections (one
// for commands, one in subscriber mode, since a subscribed connection may
// not send other commands), reconnect with exponential backoff, pipelines,
// and the one place where commands cross the process boundary.
//
// Round trips: send() is that one place. Each call writes its whole
// pipeline in one loop turn (hiredis flushes it in one write) and then waits
// for the replies, so it counts as ONE round trip whatever the number of
// commands; a MULTI/EXEC transaction is a pipeline. SUBSCRIBE on (re)connect
// goes through send() too. Tests pin per-operation counts on this counter
// (tests/redis/round_trip_claims_test.cpp). AUTH (or, without a password,
// PING) is part of connecting (connection.hpp), sent on both connections
// at every (re)connect, and not counted.
//
// Connecting: after AUTH (connection.hpp) the command connection loads
// every script of options.scripts (SCRIPT LOAD) and reads INFO replication,
// and only then is the client ready. So an EVALSHA of those scripts never
// meets an empty script cache on a fresh, restarted or newly promoted
// server, and the client knows the server's replication ID (replid()) and
// that it is a master: a replica (a Redis Sentinel failover's demoted
// master, a wrong address) is a failed connect, retried, and with
// options.locate the next attempt asks again where the master is. None of
// this is counted as a round trip; it belongs to the connect, like AUTH.
//
// Why load first instead of answering NOSCRIPT with an EVAL of the text:
// Redis runs one connection's commands in the order they arrive, and a
// command sent after the NOSCRIPT one but before its EVAL runs between the
// two (it hits as soon as any EVAL, this client's or another node's, has
// loaded the script). A client's second publication to a room then took
// the first one's offset. A NOSCRIPT can now only follow a SCRIPT FLUSH
// on a live connection: the command did not run, its reply stays the
// error (with a message saying so), the scripts are loaded again at once,
// and the caller decides (the broker answers 114, try again). Nothing is
// ever re-sent behind later commands.
//
// A READONLY reply means the server became a replica while connected (a
// failover): the replies go to the handler as they are, then the
// connection is dropped and re-established, so the next connect finds the
// master.
//
// Threading: the client belongs to one io_context run by one thread; call
// every member except round_trips() and ready() on that thread. Handlers
// run on that thread and are never called from inside execute().
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/time/backoff.hpp"
#include "redis/connection.hpp"
#include "redis/options.hpp"
#include "redis/reply.hpp"

struct redisReply;

namespace herald::redis {

using Command = std::vector<std::string>;

struct Result {
  std::string error;           // empty on success: the pipeline was answered
  std::vector<Reply> replies;  // one per command, in order (a reply may be a Redis error)
  [[nodiscard]] bool ok() const { return error.empty(); }
};

class Client {
 public:
  using Done = std::function<void(Result)>;
  using MessageFn = std::function<void(std::string_view payload)>;

  Client(boost::asio::io_context& io, Options options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Channels to subscribe to; set before start(). Resubscribed on every
  // reconnect, before on_ready runs.
  void subscribe(std::string channel, MessageFn on_message);
  // Subscribes to `channel` while running (a channel not yet subscribed).
  // `done` gets success once Redis confirmed, or an error (not ready, lost
  // connection); either way the channel stays registered and is
  // resubscribed on every reconnect until leave(). Messages go to
  // on_message from the confirmation on.
  void join(const std::string& channel, MessageFn on_message, Done done);
  // Unsubscribes; no message reaches the channel's handler afterwards. A
  // join() of the same channel while the UNSUBSCRIBE is in flight waits for
  // its confirmation before subscribing again: hiredis keys its handlers by
  // channel, and a late unsubscribe confirmation would otherwise drop the
  // new handler.
  void leave(const std::string& channel);
  // Called each time both connections are up and subscribed (after the
  // first connect and after every reconnect).
  void on_ready(std::function<void()> fn) { on_ready_ = std::move(fn); }
  // Called when the connection is lost (with the reason), once per loss.
  void on_down(std::function<void(const std::string&)> fn) { on_down_ = std::move(fn); }

  void start();
  void stop();

  // Sends the pipeline as one round trip. When the client is not ready the
  // handler gets an error at once (posted): writes fail fast while Redis is
  // down instead of queueing without bound.
  void execute(const std::vector<Command>& pipeline, Done done);

  [[nodiscard]] std::uint64_t round_trips() const {
    return round_trips_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] bool ready() const { return ready_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::string address() const;
  // The master_replid of the server, read at the last connect (empty
  // before): it names the server's replication history, which a failover
  // or a restart replaces (redis_schema.hpp says what the broker makes of
  // it). Io thread.
  [[nodiscard]] const std::string& replid() const { return replid_; }
  // Why the client is not ready (the last connection error), for messages.
  [[nodiscard]] const std::string& last_error() const { return last_error_; }
  // Set while Redis refuses this client's credentials (AUTH answered with
  // an error, e.g. WRONGPASS; or, with no password, NOAUTH): the message, which names the address
  // and the user but never the password. Cleared once ready. The client keeps retrying (an operator
  // may fix the ACL), but start-up reports this at once, as a configuration error. Any thread.
  [[nodiscard]] std::optional<std::string> refusal() const;

 private:
  // A channel's life: joining (SUBSCRIBE sent, or waiting for a connect),
  // joined, leaving (UNSUBSCRIBE sent; `rejoin` when join() came meanwhile).
  struct Subscription {
    enum class State : std::uint8_t { joining, joined, leaving };
    MessageFn on_message;
    State state = State::joining;
    bool rejoin = false;
    Done done;                  // the pending join()'s handler
    std::uint64_t attempt = 0;  // SUBSCRIBEs sent; a confirmation names its own
    // The connection (generation_) its last SUBSCRIBE went out on. A
    // channel joined while connecting, after that connection's SUBSCRIBEs
    // were sent, has none on it until the client is ready.
    std::uint64_t sent_on = 0;
  };
  void connect();
  // connect() at the address options_.locate gave (or the configured one).
  void connect_now();
  // The command connection is up: load the scripts and read INFO
  // replication, then one step nearer ready (or lost()).
  void prepare(std::uint64_t gen);
  // SCRIPT LOAD of every script again after a NOSCRIPT (counted); one at a time.
  void reload_scripts();
  // SUBSCRIBE for one channel on the live subscriber connection; `gen` is
  // the connect attempt it belongs to.
  void send_subscribe(const std::string& channel, std::uint64_t gen, bool counts_for_ready);
  // A reply on the subscriber connection for `channel`: a message, or the
  // confirmation of an UNSUBSCRIBE.
  void on_channel_reply(const std::string& channel, const redisReply* r);
  void connected_one();
  void lost(const std::string& reason, bool refused = false);
  // A connect step's outcome: lost() on error, else one step nearer ready.
  void connect_step(std::uint64_t gen, const std::optional<Connection::ConnectError>& err);
  void schedule_reconnect();
  // The one place commands are sent; counts one round trip per call.
  // With on_channel, the pipeline is one SUBSCRIBE whose later replies
  // (messages, the unsubscribe confirmation) go to on_channel.
  // `pipeline` is read before send() returns (hiredis copies each command
  // into its output buffer).
  void send(Connection& conn, const std::vector<Command>& pipeline, Done done,
            const std::function<void(const redisReply*)>& on_channel = nullptr);

  boost::asio::io_context& io_;
  Options options_;
  std::map<std::string, Subscription, std::less<>> subscriptions_;
  std::function<void()> on_ready_;
  std::function<void(const std::string&)> on_down_;
  std::shared_ptr<Connection> cmd_, sub_;
  boost::asio::steady_timer retry_timer_;
  // The steps after the connects (SCRIPT LOAD, INFO, each SUBSCRIBE's
  // confirmation) have no deadline of their own: a server that accepts and
  // then answers nothing (stopped, or wedged in a failover) would keep the
  // attempt waiting for ever. Not ready within connect_timeout +
  // command_timeout of its start, the attempt is lost and retried.
  boost::asio::steady_timer ready_timer_;
  Backoff backoff_;               // options_.reconnect_min..reconnect_max
  std::uint64_t generation_ = 0;  // bumped per connect attempt; stale callbacks compare it
  int pending_ = 0;               // connect steps left in this attempt
  std::string replid_;            // INFO replication's master_replid, at the last connect
  bool reloading_scripts_ = false;
  bool running_ = false;
  std::string last_error_ = "not connected yet";
  std::atomic<bool> ready_{false};
  mutable std::mutex refusal_mutex_;
  std::optional<std::string> refusal_;  // under refusal_mutex_
  std::atomic<std::uint64_t> round_trips_{0};
};

}  // namespace herald::redis
