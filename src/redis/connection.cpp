#include "redis/connection.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <string_view>
#include <vector>

#include "redis/argv.hpp"

namespace herald::redis {
namespace {

// One registered reply handler; hiredis holds it as privdata until the reply
// (or, persistent, until the connection ends) and on_reply deletes it.
struct Pending {
  Connection::ReplyFn fn;
  bool persistent = false;
};

Connection* self_of(const redisAsyncContext* ac) {
  return static_cast<Connection*>(ac->data);
}

}  // namespace

std::shared_ptr<Connection> Connection::create(boost::asio::io_context& io, std::string host,
                                               std::uint16_t port, Credentials credentials,
                                               LostFn on_lost) {
  return std::shared_ptr<Connection>(
      new Connection(io, std::move(host), port, std::move(credentials), std::move(on_lost)));
}

Connection::Connection(boost::asio::io_context& io, std::string host, std::uint16_t port,
                       Credentials credentials, LostFn on_lost)
    : io_(io),
      host_(std::move(host)),
      port_(port),
      credentials_(std::move(credentials)),
      on_lost_(std::move(on_lost)),
      socket_(io),
      connect_timer_(io),
      resolver_(io) {}

Connection::~Connection() {
  closing_ = true;
  if (ctx_ != nullptr) redisAsyncFree(ctx_);  // runs cleanup(), which clears ctx_
}

void Connection::connect(std::chrono::milliseconds timeout, ConnectFn done) {
  on_connected_ = std::move(done);
  // One deadline for the whole attempt: resolving the name, then connecting.
  connect_timer_.expires_after(timeout);
  connect_timer_.async_wait([self = shared_from_this(), timeout](boost::system::error_code ec) {
    if (ec || self->connected_) return;
    const std::string after = " timed out after " + std::to_string(timeout.count()) + " ms";
    if (self->resolving_) {
      self->resolving_ = false;
      self->resolver_.cancel();
      return self->finish_connect("resolving '" + self->host_ + "'" + after);
    }
    if (self->ctx_ != nullptr) {
      self->closing_ = true;
      redisAsyncFree(self->ctx_);
    }
    // Also between two addresses of a name (no context then).
    self->finish_connect("connect" + after);
  });
  // hiredis would resolve a host name with a blocking getaddrinfo on this
  // thread, stalling every other connection it drives; asio's resolver
  // runs it on a thread of its own. An IP literal needs no lookup. Each
  // attempt resolves again, so a name that moves is followed on reconnect.
  addresses_.clear();
  next_address_ = 0;
  boost::system::error_code literal;
  (void)boost::asio::ip::make_address(host_, literal);
  if (!literal) {
    addresses_.push_back(host_);
    return connect_next();
  }
  resolving_ = true;
  resolver_.async_resolve(
      host_, std::to_string(port_),
      [self = shared_from_this()](boost::system::error_code ec,
                                  const boost::asio::ip::tcp::resolver::results_type& results) {
        if (!self->resolving_) return;  // timed out or closed meanwhile
        self->resolving_ = false;
        if (ec || results.empty()) {
          return self->finish_connect("cannot resolve '" + self->host_ +
                                      "': " + (ec ? ec.message() : "no address"));
        }
        // Every address, in the resolver's order (RFC 6724), tried in turn
        // until one connects, as hiredis does (localhost may be ::1 first).
        for (const auto& r : results)
          self->addresses_.push_back(r.endpoint().address().to_string());
        self->connect_next();
      });
}

void Connection::connect_next() {
  for (;;) {
    const std::string& ip = addresses_[next_address_++];
    ctx_ = redisAsyncConnect(ip.c_str(), port_);
    if (ctx_ != nullptr && ctx_->err == 0) break;
    std::string why = ctx_ != nullptr ? ctx_->errstr : "out of memory";
    if (ctx_ != nullptr) redisAsyncFree(ctx_);  // no hooks attached yet
    ctx_ = nullptr;
    if (next_address_ == addresses_.size()) return finish_connect("cannot connect: " + why);
  }
  ctx_->data = this;
  // Safety: the descriptor borrows hiredis's fd; cleanup() releases it
  // before hiredis closes the fd, so asio never closes it.
  socket_.assign(ctx_->c.fd);
  ctx_->ev.data = this;
  ctx_->ev.addRead = &Connection::add_read;
  ctx_->ev.delRead = &Connection::del_read;
  ctx_->ev.addWrite = &Connection::add_write;
  ctx_->ev.delWrite = &Connection::del_write;
  ctx_->ev.cleanup = &Connection::cleanup;
  redisAsyncSetDisconnectCallback(ctx_, &Connection::on_disconnect);
  // Registers interest in writability: the first writable event completes
  // the non-blocking connect and calls on_connect.
  redisAsyncSetConnectCallback(ctx_, &Connection::on_connect);
}

void Connection::finish_connect(std::optional<std::string> error, bool refused) {
  connect_timer_.cancel();
  if (!on_connected_) return;
  ConnectFn fn = std::move(on_connected_);
  on_connected_ = nullptr;
  std::optional<ConnectError> failure;
  if (error) failure = ConnectError{std::move(*error), refused};
  // Posted, never called from inside a hiredis callback, so the handler may
  // close or destroy this connection.
  boost::asio::post(io_, [self = shared_from_this(), fn = std::move(fn),
                          failure = std::move(failure)] { fn(failure); });
}

void Connection::established() {
  // Without a password, a PING instead: a Redis that requires one answers
  // it NOAUTH, reported now as a refusal, rather than as the first real
  // command failing (Redis even answers an unauthenticated EVALSHA of many
  // arguments with a protocol error and closes the connection).
  std::vector<std::string> first = credentials_.auth_command();
  if (first.empty()) first = {"PING"};
  // Written ahead of any command of the caller's (none can be queued: they
  // need connected()).
  Argv argv(first);
  if (redisAsyncCommandArgv(ctx_, &Connection::on_auth, nullptr, argv.argc(), argv.args.data(),
                            argv.lens.data()) != REDIS_OK)
    finish_connect("cannot send " + first[0] + " to " + host_ + ":" + std::to_string(port_));
}

void Connection::on_auth(redisAsyncContext* ac, void* reply, void* /*privdata*/) {
  Connection* self = self_of(ac);
  // Safety: hiredis hands each callback its parsed reply as void*; with the
  // default reply functions it is a redisReply.
  const auto* r = static_cast<const redisReply*>(reply);
  if (r == nullptr) {
    // Freed meanwhile: by the connect timer or close(), which report it
    // themselves, or by a lost connection.
    if (!self->closing_) self->finish_connect("connection lost during the AUTH handshake");
    return;
  }
  const std::string_view answer =
      r->type == REDIS_REPLY_ERROR ? std::string_view(r->str, r->len) : std::string_view();
  const std::string where = "redis at " + self->host_ + ":" + std::to_string(self->port_);
  // Only NOAUTH refuses the PING: any other answer (PONG; LOADING from a
  // Redis reading its data) leaves the connection to the commands. AUTH is
  // refused only by the answers that are about the credentials; any other
  // error (max clients reached, LOADING) is a failed connect, retried.
  const auto about_credentials = [&] {
    for (std::string_view prefix : {"WRONGPASS", "NOAUTH", "NOPERM", "ERR AUTH",
                                    "ERR invalid password", "ERR Client sent AUTH"})
      if (answer.starts_with(prefix)) return true;
    return false;
  };
  const bool refused =
      self->credentials_.empty() ? answer.starts_with("NOAUTH") : about_credentials();
  const bool failed = !refused && !answer.empty() && !self->credentials_.empty();
  if (refused || failed) {
    // Redis's answer (WRONGPASS ..., NOAUTH ..., or ERR ... without any
    // password configured) names no secret; the arguments are not quoted.
    std::string why =
        self->credentials_.empty() ? where + " requires a password: " + std::string(answer)
        : failed
            ? where + " answered AUTH with " + std::string(answer)
            : where + " refused AUTH as " + self->credentials_.who() + ": " + std::string(answer);
    self->closing_ = true;
    redisAsyncFree(ac);  // inside a callback hiredis frees once it returns
    return self->finish_connect(std::move(why), refused);
  }
  self->connected_ = true;
  self->finish_connect(std::nullopt);
}

bool Connection::command(std::span<const std::string> argv, ReplyFn fn, bool persistent) {
  if (!connected()) return false;
  Argv args(argv);
  if (!fn) {
    // No reply of its own (UNSUBSCRIBE: hiredis hands the confirmation to
    // the channel's persistent handler).
    return redisAsyncCommandArgv(ctx_, nullptr, nullptr, args.argc(), args.args.data(),
                                 args.lens.data()) == REDIS_OK;
  }
  auto* pending = new Pending{std::move(fn), persistent};
  if (redisAsyncCommandArgv(ctx_, &Connection::on_reply, pending, args.argc(), args.args.data(),
                            args.lens.data()) != REDIS_OK) {
    delete pending;
    return false;
  }
  return true;
}

std::string Connection::error() const {
  if (ctx_ == nullptr || ctx_->err == 0) return {};
  return ctx_->errstr;
}

void Connection::close() {
  connect_timer_.cancel();
  if (resolving_) {
    resolving_ = false;
    resolver_.cancel();
  }
  if (ctx_ != nullptr) {
    closing_ = true;
    redisAsyncFree(ctx_);
  }
  finish_connect("connection closed");
}

void Connection::on_reply(redisAsyncContext* /*ac*/, void* reply, void* privdata) {
  auto* pending = static_cast<Pending*>(privdata);
  const auto* r = static_cast<const redisReply*>(reply);
  pending->fn(r);
  // A persistent (SUBSCRIBE) handler ends with the connection or with its
  // channel's unsubscribe confirmation, after which hiredis forgets it.
  const bool unsubscribed =
      r != nullptr && r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
      r->element[0]->type == REDIS_REPLY_STRING &&
      std::string_view(r->element[0]->str, r->element[0]->len) == "unsubscribe";
  if (!pending->persistent || reply == nullptr || unsubscribed) delete pending;
}

void Connection::on_connect(const redisAsyncContext* ac, int status) {
  Connection* self = self_of(ac);
  if (status != REDIS_OK) {
    // hiredis frees the context right after this callback, so the next
    // address (if any) is tried from a posted handler, unless the attempt
    // ended meanwhile (timed out, closed: on_connected_ is gone).
    if (self->next_address_ < self->addresses_.size()) {
      boost::asio::post(self->io_, [keep = self->shared_from_this()] {
        if (keep->on_connected_ && keep->ctx_ == nullptr) keep->connect_next();
      });
      return;
    }
    self->finish_connect(std::string("cannot connect: ") + (ac->errstr ? ac->errstr : "error"));
    return;
  }
  self->established();
}

void Connection::on_disconnect(const redisAsyncContext* ac, int status) {
  Connection* self = self_of(ac);
  self->connected_ = false;
  if (self->closing_ || !self->on_lost_) return;
  std::string reason = status == REDIS_OK                                 ? "disconnected"
                       : (ac->errstr != nullptr && ac->errstr[0] != '\0') ? ac->errstr
                                                                          : "connection lost";
  boost::asio::post(self->io_, [keep = self->shared_from_this(), fn = self->on_lost_,
                                reason = std::move(reason)] { fn(reason); });
}

void Connection::add_read(void* p) {
  auto* self = static_cast<Connection*>(p);
  self->want_read_ = true;
  self->arm_read();
}
void Connection::del_read(void* p) {
  static_cast<Connection*>(p)->want_read_ = false;
}
void Connection::add_write(void* p) {
  auto* self = static_cast<Connection*>(p);
  self->want_write_ = true;
  self->arm_write();
}
void Connection::del_write(void* p) {
  static_cast<Connection*>(p)->want_write_ = false;
}

void Connection::cleanup(void* p) {
  auto* self = static_cast<Connection*>(p);
  self->want_read_ = self->want_write_ = false;
  self->connected_ = false;
  // release() cancels the pending waits (their handlers see operation_aborted)
  // and gives the fd back without closing it: hiredis closes it next.
  if (self->socket_.is_open()) (void)self->socket_.release();
  self->ctx_ = nullptr;
}

// A wait is one-shot; hiredis's "add" means "until del", so each handler
// re-arms while interest remains and the context is alive.
void Connection::arm_read() {
  if (reading_ || ctx_ == nullptr) return;
  reading_ = true;
  socket_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                     [self = shared_from_this()](boost::system::error_code ec) {
                       self->reading_ = false;
                       if (ec || self->ctx_ == nullptr || !self->want_read_) return;
                       redisAsyncHandleRead(self->ctx_);  // may free the context
                       if (self->ctx_ != nullptr && self->want_read_) self->arm_read();
                     });
}

void Connection::arm_write() {
  if (writing_ || ctx_ == nullptr) return;
  writing_ = true;
  socket_.async_wait(boost::asio::posix::stream_descriptor::wait_write,
                     [self = shared_from_this()](boost::system::error_code ec) {
                       self->writing_ = false;
                       if (ec || self->ctx_ == nullptr || !self->want_write_) return;
                       redisAsyncHandleWrite(self->ctx_);  // may free the context
                       if (self->ctx_ != nullptr && self->want_write_) self->arm_write();
                     });
}

}  // namespace herald::redis
