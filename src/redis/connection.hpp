// One hiredis async context driven by an asio io_context.
//
// hiredis does the protocol (command formatting, RESP parsing, the reply
// queue); this class only tells it when its socket is readable or writable.
// hiredis asks through five hooks (addRead/delRead/addWrite/delWrite/
// cleanup); each maps to a one-shot asio wait on a descriptor that borrows
// the socket hiredis owns.
//
// Threading: every member, and every callback, runs on the io_context's
// single thread. Instances live in a shared_ptr so that pending waits keep
// them alive; nothing here outlives the context it drives.
//
// Lifetime of the hiredis context: hiredis frees it by itself when the
// connection fails (connect error, read error, peer closed). The cleanup
// hook runs just before the socket is closed; it releases our descriptor
// (so asio never closes hiredis's fd) and clears ctx_, which every entry
// point checks.
//
// Authentication is part of connecting: with credentials, the connection
// sends AUTH first and counts as established (connected(), the connect
// callback's success) only once Redis accepted it, so no command of the
// caller's can run unauthenticated and every reconnect (a fresh
// Connection) authenticates again. Without credentials it sends PING
// instead, so that a Redis that requires a password says so (NOAUTH) at
// connect. That command is the one not sent by Client::send(), and so not
// counted as a round trip: it belongs to the connect, like the TCP
// handshake. The connect timeout covers it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "redis/options.hpp"

struct redisAsyncContext;
struct redisReply;

namespace herald::redis {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // Called once per reply; with nullptr when the connection went away before
  // the reply came. A persistent handler (SUBSCRIBE) is called for every
  // message on its channel, and once more with nullptr at the end.
  using ReplyFn = std::function<void(const redisReply*)>;
  struct ConnectError {
    std::string message;
    // Redis answered and said no (AUTH refused): a configuration error
    // that retrying does not fix, which start-up reports at once.
    bool refused = false;
  };
  // nullopt on success, else what went wrong.
  using ConnectFn = std::function<void(std::optional<ConnectError> error)>;
  // The connection was lost after it was established (not called after close()).
  using LostFn = std::function<void(std::string reason)>;

  static std::shared_ptr<Connection> create(boost::asio::io_context& io, std::string host,
                                            std::uint16_t port, Credentials credentials,
                                            LostFn on_lost);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts a non-blocking connect (resolving a host name first, off this
  // thread); `done` is called exactly once. After `timeout` without a
  // connection the attempt is abandoned with an error.
  void connect(std::chrono::milliseconds timeout, ConnectFn done);
  // Appends one command to hiredis's output buffer; hiredis writes it when
  // the socket is next writable, so commands appended in one loop turn leave
  // in one write. Returns false (fn not called) when not connected or when
  // hiredis refuses the command. With an empty fn the command registers no
  // handler (UNSUBSCRIBE, whose confirmation goes to the channel's handler).
  bool command(std::span<const std::string> argv, ReplyFn fn, bool persistent = false);
  // Frees the context now: pending handlers get nullptr, on_lost is not called.
  void close();
  [[nodiscard]] bool connected() const { return ctx_ != nullptr && connected_; }
  // hiredis's error text for this connection, while it has one (inside the
  // nullptr replies of a connection being torn down: why it went, e.g.
  // Redis's own error); empty otherwise.
  [[nodiscard]] std::string error() const;

 private:
  Connection(boost::asio::io_context& io, std::string host, std::uint16_t port,
             Credentials credentials, LostFn on_lost);

  // hiredis event hooks (privdata is the Connection).
  static void add_read(void* p);
  static void del_read(void* p);
  static void add_write(void* p);
  static void del_write(void* p);
  static void cleanup(void* p);
  static void on_connect(const redisAsyncContext* ac, int status);
  static void on_disconnect(const redisAsyncContext* ac, int status);
  static void on_reply(redisAsyncContext* ac, void* reply, void* privdata);
  static void on_auth(redisAsyncContext* ac, void* reply, void* privdata);

  void arm_read();
  void arm_write();
  void connect_next();  // to addresses_[next_address_++]
  void finish_connect(std::optional<std::string> error, bool refused = false);
  void established();  // TCP is up: AUTH if there are credentials, then done

  boost::asio::io_context& io_;
  std::string host_;
  std::uint16_t port_;
  Credentials credentials_;
  LostFn on_lost_;
  ConnectFn on_connected_;
  redisAsyncContext* ctx_ = nullptr;
  boost::asio::posix::stream_descriptor socket_;
  boost::asio::steady_timer connect_timer_;
  boost::asio::ip::tcp::resolver resolver_;
  bool resolving_ = false;              // a lookup is pending (its handler checks this)
  std::vector<std::string> addresses_;  // this attempt's IPs, tried in order
  std::size_t next_address_ = 0;
  bool connected_ = false;
  bool closing_ = false;
  bool want_read_ = false, want_write_ = false;
  bool reading_ = false, writing_ = false;  // an async_wait is pending
};

}  // namespace herald::redis
