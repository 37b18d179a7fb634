// The asio adapter over hiredis, against a real redis-server: pipelines,
// pub/sub, failing fast while Redis is away, reconnecting with backoff,
// connect and command timeouts, scripts loaded on connect and sent by SHA1,
// the role check, a located address. Single-threaded: the client runs on
// the test's own io_context.
#include "redis/client.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "redis/script.hpp"
#include "redis_server.hpp"

namespace herald::test {
namespace {

using namespace std::chrono_literals;

struct Harness {
  explicit Harness(redis::Options o) : client(io, std::move(o)) {}
  // Runs the loop until `pred` holds; false after `timeout` (a generous bound).
  bool run_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      io.run_one_for(20ms);
    }
    return true;
  }
  redis::Result exec(std::vector<redis::Command> pipeline) {
    std::optional<redis::Result> out;
    client.execute(std::move(pipeline), [&](redis::Result r) { out = std::move(r); });
    EXPECT_TRUE(run_until([&] { return out.has_value(); }));
    return out.value_or(redis::Result{"no answer", {}});
  }
  boost::asio::io_context io;
  redis::Client client;
};

redis::Options options(std::uint16_t port) {
  redis::Options o;
  o.port = port;
  o.reconnect_min = 10ms;
  o.reconnect_max = 100ms;
  return o;
}

TEST(RedisClient, PipelineRepliesInOrder) {
  RedisServer server;
  Harness h(options(server.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  auto r = h.exec(
      {{"SET", "a", "1"}, {"INCR", "a"}, {"GET", "a"}, {"GET", "missing"}, {"HGET", "a", "x"}});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.replies.size(), 5u);
  EXPECT_EQ(r.replies[0].type, redis::Reply::Type::status);
  EXPECT_EQ(r.replies[1].integer, 2);
  EXPECT_EQ(r.replies[2].str, "2");
  EXPECT_TRUE(r.replies[3].is_nil());
  // A command Redis refuses is a reply of its own, not a failed pipeline.
  EXPECT_TRUE(r.replies[4].is_error());
  EXPECT_NE(r.replies[4].str.find("WRONGTYPE"), std::string::npos);
}

TEST(RedisClient, BinarySafeArguments) {
  RedisServer server;
  Harness h(options(server.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  const std::string value("a\0b\r\nc", 6);
  auto r = h.exec({{"SET", "bin", value}, {"GET", "bin"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.replies[1].str, value);
}

TEST(RedisClient, SubscriptionDeliversMessages) {
  RedisServer server;
  Harness h(options(server.port()));
  std::vector<std::string> got;
  h.client.subscribe("chan", [&](std::string_view m) { got.emplace_back(m); });
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  // Ready means subscribed: a message published now is delivered.
  EXPECT_EQ(server.command({"PUBLISH", "chan", "hello"}).integer, 1);
  EXPECT_EQ(server.command({"PUBLISH", "other", "x"}).integer, 0);
  ASSERT_TRUE(h.run_until([&] { return got.size() == 1; }));
  EXPECT_EQ(got[0], "hello");
}

// Channels joined and left while running (the cluster broker's per-room
// channels): confirmation, no message after leave, and a leave followed at
// once by a join of the same channel (the UNSUBSCRIBE confirmation must not
// drop the new subscription), then both survive a reconnect.
TEST(RedisClient, JoinAndLeaveChannelsWhileRunning) {
  RedisServer server;
  Harness h(options(server.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  auto numsub = [&](const std::string& ch) {
    return server.command({"PUBSUB", "NUMSUB", ch}).elements.at(1).integer;
  };
  std::vector<std::string> a, b;
  std::optional<redis::Result> joined;
  h.client.join(
      "a", [&](std::string_view m) { a.emplace_back(m); },
      [&](redis::Result r) { joined = std::move(r); });
  ASSERT_TRUE(h.run_until([&] { return joined.has_value(); }));
  ASSERT_TRUE(joined->ok()) << joined->error;
  EXPECT_EQ(numsub("a"), 1);
  server.command({"PUBLISH", "a", "1"});
  ASSERT_TRUE(h.run_until([&] { return a.size() == 1; }));

  h.client.leave("a");
  ASSERT_TRUE(h.run_until([&] { return numsub("a") == 0; }));
  server.command({"PUBLISH", "a", "lost"});

  // Leave and join again in one turn: the second join waits for the
  // UNSUBSCRIBE confirmation, then subscribes.
  joined.reset();
  h.client.join(
      "b", [&](std::string_view m) { b.emplace_back(m); }, [](redis::Result) {});
  h.client.leave("b");
  h.client.join(
      "b", [&](std::string_view m) { b.emplace_back(m); },
      [&](redis::Result r) { joined = std::move(r); });
  ASSERT_TRUE(h.run_until([&] { return joined.has_value(); }));
  ASSERT_TRUE(joined->ok()) << joined->error;
  EXPECT_EQ(numsub("b"), 1);
  server.command({"PUBLISH", "b", "2"});
  ASSERT_TRUE(h.run_until([&] { return b.size() == 1; }));
  EXPECT_EQ(b[0], "2");
  EXPECT_EQ(a.size(), 1u);  // nothing after its leave

  // A joined channel is resubscribed after a reconnect; a left one is not.
  server.kill();
  ASSERT_TRUE(h.run_until([&] { return !h.client.ready(); }));
  server.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  EXPECT_EQ(numsub("b"), 1);
  EXPECT_EQ(numsub("a"), 0);
  server.command({"PUBLISH", "b", "3"});
  ASSERT_TRUE(h.run_until([&] { return b.size() == 2; }));
}

TEST(RedisClient, JoinWhileDownFailsAtOnceAndSubscribesOnReconnect) {
  RedisServer server;
  Harness h(options(server.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  server.kill();
  ASSERT_TRUE(h.run_until([&] { return !h.client.ready(); }));
  std::optional<redis::Result> joined;
  int messages = 0;
  h.client.join(
      "c", [&](std::string_view) { ++messages; }, [&](redis::Result r) { joined = std::move(r); });
  ASSERT_TRUE(h.run_until([&] { return joined.has_value(); }));
  EXPECT_FALSE(joined->ok());
  server.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  server.command({"PUBLISH", "c", "x"});
  EXPECT_TRUE(h.run_until([&] { return messages == 1; }));
}

TEST(RedisClient, FailsFastWhileDownAndReconnectsWithResubscribe) {
  RedisServer server;
  Harness h(options(server.port()));
  int messages = 0, downs = 0, readies = 0;
  std::string down_reason;
  h.client.subscribe("chan", [&](std::string_view) { ++messages; });
  h.client.on_down([&](const std::string& why) {
    ++downs;
    down_reason = why;
  });
  h.client.on_ready([&] { ++readies; });
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));

  server.kill();
  ASSERT_TRUE(h.run_until([&] { return !h.client.ready(); }));
  EXPECT_EQ(downs, 1);
  EXPECT_FALSE(down_reason.empty());
  auto r = h.exec({{"PING"}});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("redis unavailable at 127.0.0.1:" + std::to_string(server.port())),
            std::string::npos)
      << r.error;

  server.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  EXPECT_EQ(readies, 2);
  EXPECT_TRUE(h.exec({{"PING"}}).ok());
  server.command({"PUBLISH", "chan", "again"});
  EXPECT_TRUE(h.run_until([&] { return messages == 1; }));
}

// AUTH on every connection: the command and the subscriber connection
// (else SUBSCRIBE gets NOAUTH), and again after a restart of Redis.
void expect_authenticated_round_trip(RedisServer& server, const redis::Credentials& credentials) {
  redis::Options o = options(server.port());
  o.credentials = credentials;
  Harness h(o);
  std::vector<std::string> got;
  h.client.subscribe("chan", [&](std::string_view m) { got.emplace_back(m); });
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); })) << h.client.last_error();
  auto r = h.exec({{"SET", "k", "v"}, {"GET", "k"}});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.replies[1].str, "v");
  EXPECT_EQ(server.command({"PUBLISH", "chan", "1"}).integer, 1);
  ASSERT_TRUE(h.run_until([&] { return got.size() == 1; }));
  server.kill();
  server.start();
  ASSERT_TRUE(h.run_until([&] { return !h.client.ready(); }));
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); })) << h.client.last_error();
  EXPECT_EQ(h.exec({{"SET", "k", "w"}}).replies.at(0).str, "OK");
  EXPECT_EQ(server.command({"PUBLISH", "chan", "2"}).integer, 1);
  ASSERT_TRUE(h.run_until([&] { return got.size() == 2; }));
  EXPECT_FALSE(h.client.refusal());
}

TEST(RedisClient, AuthenticatesWithRequirepassOnEveryConnection) {
  RedisServer server({"--requirepass", "s3cret-pw"}, {"", "s3cret-pw"});
  expect_authenticated_round_trip(server, {"", "s3cret-pw"});
}

TEST(RedisClient, AuthenticatesAsAnAclUser) {
  RedisServer server(
      {"--user", "alice", "on", ">alice-pw", "~*", "&*", "+@all", "--user", "default", "off"},
      {"alice", "alice-pw"});
  expect_authenticated_round_trip(server, {"alice", "alice-pw"});
}

// A username alone authenticates a `nopass` ACL user (it used to send no
// AUTH at all, which fell back to the default user: off here, so NOAUTH).
TEST(RedisClient, AUsernameWithoutAPasswordAuthenticatesANopassUser) {
  RedisServer server({"--user", "alice", "on", ">alice-pw", "~*", "&*", "+@all", "--user", "bob",
                      "on", "nopass", "~*", "&*", "+@all", "--user", "default", "off"},
                     {"alice", "alice-pw"});
  expect_authenticated_round_trip(server, {"bob", ""});
}

// ... and a user with a password, named without it, is refused at connect.
TEST(RedisClient, AUsernameWithoutItsPasswordIsARefusal) {
  RedisServer server({"--user", "alice", "on", ">alice-pw", "~*", "&*", "+@all"},
                     {"alice", "alice-pw"});
  redis::Options o = options(server.port());
  o.credentials = {"alice", ""};
  Harness h(o);
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.refusal().has_value(); })) << h.client.last_error();
  EXPECT_NE(h.client.refusal()->find("user 'alice'"), std::string::npos) << *h.client.refusal();
}

TEST(RedisClient, WrongPasswordIsARefusalThatNamesTheUserNotThePassword) {
  RedisServer server({"--user", "alice", "on", ">alice-pw", "~*", "&*", "+@all"},
                     {"alice", "alice-pw"});
  redis::Options o = options(server.port());
  o.credentials = {"alice", "not-the-password"};
  Harness h(o);
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.refusal().has_value(); }));
  const std::string why = *h.client.refusal();
  EXPECT_NE(why.find("WRONGPASS"), std::string::npos) << why;
  EXPECT_NE(why.find("user 'alice'"), std::string::npos) << why;
  EXPECT_NE(why.find("127.0.0.1:" + std::to_string(server.port())), std::string::npos) << why;
  EXPECT_EQ(why.find("not-the-password"), std::string::npos) << why;
  EXPECT_FALSE(h.client.ready());
  auto r = h.exec({{"PING"}});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("WRONGPASS"), std::string::npos) << r.error;
}

TEST(RedisClient, NoPasswordForARedisThatRequiresOneIsARefusal) {
  RedisServer server({"--requirepass", "pw"}, {"", "pw"});
  Harness h(options(server.port()));
  h.client.subscribe("chan", [](std::string_view) {});
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.refusal().has_value(); })) << h.client.last_error();
  EXPECT_NE(h.client.refusal()->find("requires a password"), std::string::npos)
      << *h.client.refusal();
  EXPECT_NE(h.client.refusal()->find("NOAUTH"), std::string::npos) << *h.client.refusal();
  EXPECT_FALSE(h.client.ready());
}

TEST(RedisClient, ConnectionRefusedSaysWhereAndWhy) {
  // A port with nothing listening: take a free one from a server we stop.
  std::uint16_t port;
  {
    RedisServer server;
    port = server.port();
  }
  Harness h(options(port));
  h.client.start();
  h.run_until([] { return false; }, 200ms);
  EXPECT_FALSE(h.client.ready());
  auto r = h.exec({{"PING"}});
  EXPECT_NE(r.error.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("onnect"), std::string::npos) << r.error;
}

// A host name is resolved (asio's resolver, off the client's loop) and
// each of its addresses tried in turn.
TEST(RedisClient, HostNameIsResolved) {
  RedisServer server;
  redis::Options o = options(server.port());
  o.host = "localhost";
  Harness h(o);
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); })) << h.client.last_error();
  auto r = h.exec({{"PING"}});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.replies[0].str, "PONG");
}

// A name that does not resolve: the error names it; the client keeps
// retrying (with backoff) rather than giving up, like a refused connect.
TEST(RedisClient, UnresolvableHostSaysWhich) {
  redis::Options o = options(6379);
  o.host = "no-such-host.invalid";  // RFC 6761: never resolves
  o.connect_timeout = 2s;
  Harness h(o);
  h.client.start();
  // "cannot resolve 'no-such-host.invalid': ..." or, where the resolver
  // waits on an unreachable name server, "resolving '...' timed out".
  EXPECT_TRUE(h.run_until([&] {
    return h.client.last_error().find("resolv") != std::string::npos &&
           h.client.last_error().find("'no-such-host.invalid'") != std::string::npos;
  })) << h.client.last_error();
  EXPECT_FALSE(h.client.ready());
  auto r = h.exec({{"PING"}});
  EXPECT_FALSE(r.ok());
  h.client.stop();
}

// A listening socket on a kernel-chosen loopback port (`addr`, filled in)
// with accept queue `backlog`: the servers tests play themselves. -1 on
// failure.
int loopback_listener(int backlog, sockaddr_in& addr) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  addr = sockaddr_in{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, backlog) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

TEST(RedisClient, ConnectTimeout) {
  // A listener whose accept queue is full: the kernel drops further SYNs,
  // so a connect neither succeeds nor fails until our timeout ends it.
  sockaddr_in addr{};
  const int lfd = loopback_listener(0, addr);
  ASSERT_GE(lfd, 0);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    (void)connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fillers.push_back(fd);
  }
  redis::Options o = options(ntohs(addr.sin_port));
  o.connect_timeout = 150ms;
  Harness h(o);
  h.client.start();
  EXPECT_TRUE(h.run_until([&] {
    return h.client.last_error().find("connect timed out after 150 ms") != std::string::npos;
  })) << h.client.last_error();
  EXPECT_FALSE(h.client.ready());
  h.client.stop();
  for (int fd : fillers) close(fd);
  close(lfd);
}

TEST(RedisClient, CommandTimeoutDropsTheConnectionAndRecovers) {
  RedisServer server;
  redis::Options o = options(server.port());
  o.command_timeout = 200ms;
  Harness h(o);
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  server.signal(SIGSTOP);  // alive but silent
  auto r = h.exec({{"PING"}});
  EXPECT_NE(r.error.find("no reply within 200 ms"), std::string::npos) << r.error;
  EXPECT_FALSE(h.client.ready());
  server.signal(SIGCONT);
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  EXPECT_TRUE(h.exec({{"PING"}}).ok());
}

TEST(RedisScript, TheShaIsTheOneRedisCliScriptLoadReturns) {
  RedisServer server;
  const redis::Script script("return {KEYS[1], ARGV[1], 'caf\xc3\xa9'}");
  RunResult r = run(
      {"/usr/bin/redis-cli", "-p", std::to_string(server.port()), "SCRIPT", "LOAD", script.text()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, script.sha() + "\n");
  EXPECT_EQ(redis::sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");  // FIPS 180 vector
}

// A script of the tests', and a client that loads it on connect.
const redis::Script kIncr("return redis.call('INCR', KEYS[1])");

redis::Options loading_incr(std::uint16_t port) {
  redis::Options o = options(port);
  o.scripts = {&kIncr};
  return o;
}

// A server that answers the connect's PING and then nothing (what a Redis
// wedged mid-failover looks like; a real one cannot be made to do it on
// cue, so a listener of the test's plays it): the steps after the connect
// (SCRIPT LOAD, INFO, SUBSCRIBE) are not waited on for ever. The attempt
// is lost after connect_timeout + command_timeout and retried.
TEST(RedisClient, AServerThatAnswersOnlyThePingIsLeftAndRetried) {
  sockaddr_in addr{};
  const int lfd = loopback_listener(16, addr);
  ASSERT_GE(lfd, 0);
  // Each connection: read the PING, answer it, then keep the socket open
  // and silent until the test ends.
  std::vector<int> accepted;
  std::atomic<bool> done{false};
  std::thread server([&] {
    while (!done) {
      pollfd p{lfd, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int fd = accept(lfd, nullptr, nullptr);
      if (fd < 0) continue;
      char buf[256];
      if (read(fd, buf, sizeof buf) > 0) (void)!write(fd, "+PONG\r\n", 7);
      accepted.push_back(fd);
    }
  });
  redis::Options o = loading_incr(ntohs(addr.sin_port));
  o.connect_timeout = 100ms;
  o.command_timeout = 100ms;
  Harness h(o);
  h.client.start();
  EXPECT_TRUE(h.run_until([&] {
    return h.client.last_error().find("not ready within 200 ms of connecting") != std::string::npos;
  })) << h.client.last_error();
  EXPECT_FALSE(h.client.ready());
  h.client.stop();
  done = true;
  server.join();
  EXPECT_GE(accepted.size(), 2U);  // its two connections, at least
  for (int fd : accepted) close(fd);
  close(lfd);
}

// A TCP proxy in front of a real redis-server that, while closed, holds
// back the server's answer on the connection that sent INFO: the command
// connection's last step before the client is ready. A test can then act
// while the client is connecting, its subscriber connection up and its
// SUBSCRIBEs sent, which a real server alone cannot be made to pause at.
class InfoGate {
 public:
  explicit InfoGate(std::uint16_t redis_port) : redis_port_(redis_port) {
    listener_ = loopback_listener(16, addr_);
    thread_ = std::thread([this] { run(); });
  }
  ~InfoGate() {
    stop_ = true;
    thread_.join();
    for (const Pair& p : pairs_) close(p.client), close(p.server);
    close(listener_);
  }
  InfoGate(const InfoGate&) = delete;
  InfoGate& operator=(const InfoGate&) = delete;
  [[nodiscard]] std::uint16_t port() const { return ntohs(addr_.sin_port); }
  [[nodiscard]] bool holding() const { return holding_; }
  void open() { open_ = true; }

 private:
  struct Pair {
    int client, server;
    bool gated = false;  // sent INFO
    std::string held;    // the server's bytes kept back
  };
  void run() {
    while (!stop_) {
      std::vector<pollfd> fds{{listener_, POLLIN, 0}};
      for (const Pair& p : pairs_) {
        fds.push_back({p.client, POLLIN, 0});
        fds.push_back({p.server, POLLIN, 0});
      }
      (void)poll(fds.data(), fds.size(), 10);
      // The pairs polled; one accepted now is polled from the next turn.
      const std::size_t polled = pairs_.size();
      if ((fds[0].revents & POLLIN) != 0) accept_one();
      for (std::size_t i = 0; i < polled; ++i) {
        Pair& p = pairs_[i];
        char buf[16384];
        if ((fds[1 + 2 * i].revents & POLLIN) != 0) {
          const ssize_t n = read(p.client, buf, sizeof buf);
          // Safety: n is checked positive before it is read as a size.
          if (n > 0) {
            const std::string_view bytes(buf, static_cast<std::size_t>(n));
            if (bytes.find("INFO") != std::string_view::npos) p.gated = true;
            (void)!write(p.server, buf, static_cast<std::size_t>(n));
          }
        }
        if ((fds[2 + 2 * i].revents & POLLIN) != 0) {
          const ssize_t n = read(p.server, buf, sizeof buf);
          if (n > 0) p.held.append(buf, static_cast<std::size_t>(n));
        }
        if (p.gated && !open_) {
          holding_ = holding_ || !p.held.empty();
        } else if (!p.held.empty()) {
          (void)!write(p.client, p.held.data(), p.held.size());
          p.held.clear();
        }
      }
    }
  }
  void accept_one() {
    const int c = accept(listener_, nullptr, nullptr);
    if (c < 0) return;
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons(redis_port_);
    if (connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      close(c), close(s);
      return;
    }
    pairs_.push_back(Pair{c, s, false, {}});
  }
  std::uint16_t redis_port_;
  sockaddr_in addr_{};
  int listener_ = -1;
  std::vector<Pair> pairs_;  // the proxy thread's
  std::atomic<bool> stop_{false}, open_{false}, holding_{false};
  std::thread thread_;
};

// A channel joined while the client connects, after the subscriber
// connection sent its SUBSCRIBEs, is not subscribed on that connection
// (the join is told "unavailable" and the channel is subscribed now that
// the client is ready, as on a reconnect). Leaving it must not wait for an
// UNSUBSCRIBE confirmation: hiredis routes one by the channel's SUBSCRIBE
// handler, and a channel never subscribed has none, so the answer was
// dropped and the channel stayed "leaving" for ever, and every later join
// of it waited for that confirmation, unanswered (the cluster broker's
// room then never answered its subscribes: seen in a G3 failover run).
TEST(RedisClient, AChannelJoinedWhileConnectingCanBeLeftAndJoinedAgain) {
  RedisServer server;
  InfoGate gate(server.port());
  Harness h(options(gate.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return gate.holding(); }));
  h.io.run_for(100ms);  // the subscriber connection is up by now
  ASSERT_FALSE(h.client.ready());
  std::optional<redis::Result> first;
  int messages = 0;
  h.client.join(
      "d", [&](std::string_view) { ++messages; }, [&](redis::Result r) { first = std::move(r); });
  ASSERT_TRUE(h.run_until([&] { return first.has_value(); }));
  EXPECT_FALSE(first->ok());
  gate.open();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  // Registered all the same: subscribed once ready.
  server.command({"PUBLISH", "d", "x"});  // may come before the SUBSCRIBE
  ASSERT_TRUE(h.run_until([&] {
    return server.command({"PUBSUB", "NUMSUB", "d"}).elements.at(1).integer == 1;
  }));
  server.command({"PUBLISH", "d", "y"});
  ASSERT_TRUE(h.run_until([&] { return messages >= 1; }));
  // As the broker does after a failed join: leave, and join again later.
  h.client.leave("d");
  std::optional<redis::Result> again;
  h.client.join(
      "d", [&](std::string_view) { ++messages; }, [&](redis::Result r) { again = std::move(r); });
  ASSERT_TRUE(h.run_until([&] { return again.has_value(); })) << "the join was never answered";
  EXPECT_TRUE(again->ok()) << again->error;
}

// The same without the late subscribe: left before the client is ready,
// the channel is forgotten, and a join once ready subscribes it.
TEST(RedisClient, AChannelLeftWhileConnectingIsForgotten) {
  RedisServer server;
  InfoGate gate(server.port());
  Harness h(options(gate.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return gate.holding(); }));
  h.io.run_for(100ms);
  std::optional<redis::Result> first;
  h.client.join(
      "e", [](std::string_view) {}, [&](redis::Result r) { first = std::move(r); });
  ASSERT_TRUE(h.run_until([&] { return first.has_value(); }));
  h.client.leave("e");
  gate.open();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  h.io.run_for(100ms);
  EXPECT_EQ(server.command({"PUBSUB", "NUMSUB", "e"}).elements.at(1).integer, 0);
  std::optional<redis::Result> again;
  h.client.join(
      "e", [](std::string_view) {}, [&](redis::Result r) { again = std::move(r); });
  ASSERT_TRUE(h.run_until([&] { return again.has_value(); }));
  EXPECT_TRUE(again->ok()) << again->error;
}

// The scripts of Options::scripts are loaded on every connect, before the
// client is ready: on a fresh server and after a restart the first EVALSHA
// hits, one round trip, and no EVAL is ever sent (client.hpp says why an
// EVAL after a NOSCRIPT would reorder a connection's commands).
TEST(RedisScript, ScriptsAreLoadedOnConnectSoTheFirstEvalshaHits) {
  RedisServer server;
  Harness h(loading_incr(server.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  auto call = [&] { return h.exec({{"EVALSHA", kIncr.sha(), "1", "n"}}); };
  const std::uint64_t before = h.client.round_trips();
  auto r = call();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.replies.at(0).integer, 1) << r.replies.at(0).describe();
  EXPECT_EQ(h.client.round_trips() - before, 1u);
  // A restarted server has an empty cache: loaded again on the reconnect.
  server.kill();
  ASSERT_TRUE(h.run_until([&] { return !h.client.ready(); }));
  server.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  const std::uint64_t after_restart = h.client.round_trips();
  r = call();
  EXPECT_EQ(r.replies.at(0).integer, 1) << r.replies.at(0).describe();  // not persisted
  EXPECT_EQ(h.client.round_trips() - after_restart, 1u);
  EXPECT_EQ(server.calls("eval"), 0);
}

// SCRIPT FLUSH on a live connection: an EVALSHA that meets the empty cache
// did not run, and is not run again behind later commands: its reply is
// the error, saying what happened; the client loads its scripts again (one
// counted round trip), and the next call hits.
TEST(RedisScript, AFlushedCacheFailsTheCommandReloadsAndNeverRunsItLater) {
  RedisServer server;
  Harness h(loading_incr(server.port()));
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  ASSERT_EQ(h.exec({{"EVALSHA", kIncr.sha(), "1", "n"}}).replies.at(0).integer, 1);
  ASSERT_EQ(server.command({"SCRIPT", "FLUSH"}).str, "OK");
  auto r = h.exec({{"EVALSHA", kIncr.sha(), "1", "n"}, {"GET", "n"}});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.replies.size(), 2u);
  EXPECT_TRUE(r.replies[0].is_error());
  EXPECT_NE(r.replies[0].str.find("SCRIPT FLUSH"), std::string::npos) << r.replies[0].str;
  EXPECT_EQ(r.replies[1].str, "1");  // the failed call did not run
  ASSERT_TRUE(h.run_until([&] {
    return server.command({"SCRIPT", "EXISTS", kIncr.sha()}).elements.at(0).integer == 1;
  }));
  EXPECT_EQ(h.exec({{"EVALSHA", kIncr.sha(), "1", "n"}}).replies.at(0).integer, 2);
  EXPECT_EQ(h.exec({{"GET", "n"}}).replies.at(0).str, "2");  // nothing ran twice, or late
  EXPECT_EQ(server.calls("eval"), 0);
}

// Writes need a master: a replica is a failed connect, retried, with a
// message that says what to do.
TEST(RedisClient, AReplicaIsNotConnectedTo) {
  RedisServer master;
  RedisServer replica({"--replicaof", "127.0.0.1", std::to_string(master.port())}, {});
  Harness h(options(replica.port()));
  h.client.start();
  ASSERT_TRUE(
      h.run_until([&] { return h.client.last_error().find("not a master") != std::string::npos; }));
  EXPECT_FALSE(h.client.ready());
  EXPECT_NE(h.client.last_error().find("sentinel"), std::string::npos) << h.client.last_error();
  // Promoted (as a failover does): the retry connects, and knows its history.
  ASSERT_EQ(replica.command({"REPLICAOF", "NO", "ONE"}).str, "OK");
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  const std::string info = replica.command({"INFO", "replication"}).str;
  EXPECT_NE(info.find("master_replid:" + h.client.replid()), std::string::npos) << info;
  EXPECT_EQ(h.client.replid().size(), 40u);
}

// With Options::locate the address is asked before every connect: after
// the server it named goes, the next connect goes where it names now.
TEST(RedisClient, ALocatedAddressIsAskedAgainOnEveryConnect) {
  RedisServer first, second;
  std::uint16_t at = first.port();
  int asked = 0;
  redis::Options o = options(0);
  o.locate = [&](const std::function<void(redis::Located)>& done) {
    ++asked;
    done(redis::Located{"127.0.0.1", at, {}});
  };
  Harness h(o);
  h.client.start();
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  ASSERT_TRUE(h.exec({{"SET", "where", "first"}}).ok());
  at = second.port();
  first.kill();
  ASSERT_TRUE(h.run_until([&] { return !h.client.ready(); }));
  ASSERT_TRUE(h.run_until([&] { return h.client.ready(); }));
  ASSERT_TRUE(h.exec({{"SET", "where", "second"}}).ok());
  EXPECT_EQ(second.command({"GET", "where"}).str, "second");
  EXPECT_GE(asked, 2);
  EXPECT_EQ(h.client.address(), "127.0.0.1:" + std::to_string(second.port()));
}

}  // namespace
}  // namespace herald::test
