// The client core (gateway/client/) driven with no socket at all: a fake
// Output that encodes what the core hands it through the tests' codec
// (test_codec.hpp), and commands decoded by that codec from a plain-text
// protocol that shares nothing with Herald's JSON. What passes here is what the core promises
// every transport and every wire protocol: connect, subscribe, recovery
// from a position, publish with its delivery, and a slow consumer's close.
//
// The server's parts under the core are the real ones (ServerState, one
// shard's ShardState and Hub, MemoryBroker); the shard's io_context is run
// by the test thread, so every step is deterministic.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/registry.hpp"
#include "gateway/broker/memory_broker.hpp"
#include "gateway/client/client.hpp"
#include "gateway/codec/codec.hpp"
#include "gateway/options.hpp"
#include "gateway/server_state.hpp"
#include "gateway/shard_pool.hpp"
#include "test_codec.hpp"

namespace herald::test {
namespace {

namespace gw = gateway;

// The transport's part, with no socket: each reply and push is encoded by
// the codec and kept as a line. A queue bound stands for the socket's
// backlog: past it the transport queues nothing more and tells the core
// from inside the call, as a real transport does; the core posts the close
// (client/client.hpp, close_slow_consumer).
// Held by a shared_ptr, as a session is: the core's pending operations
// hold it through the weak pointer start() is given, so a broker answer
// that comes late finds the client alive.
class FakeTransport final : public gw::client::Output,
                            public gw::codec::CommandSink,
                            public std::enable_shared_from_this<FakeTransport> {
 public:
  FakeTransport(gw::ServerState& state, boost::asio::io_context& ctx, std::size_t queue_bound,
                gw::client::Setup setup)
      : queue_bound_(queue_bound),
        client_(state, *state.shards[0], ctx.get_executor(), *this, std::move(setup)) {}
  static std::shared_ptr<FakeTransport> open(gw::ServerState& state, boost::asio::io_context& ctx,
                                             std::size_t queue_bound,
                                             gw::client::Setup setup = {}) {
    auto t = std::make_shared<FakeTransport>(state, ctx, queue_bound, std::move(setup));
    t->client_.start(t);
    return t;
  }
  ~FakeTransport() { client_.finish(); }
  FakeTransport(const FakeTransport&) = delete;
  FakeTransport& operator=(const FakeTransport&) = delete;

  // A message as the transport read it.
  void receive(std::string_view message) { codec_.decode(message, *this); }

  // CommandSink
  bool on_command(protocol::Command& command) override {
    client_.execute(command);
    return client_.reading();
  }
  bool on_refused(const protocol::CommandError& error) override {
    client_.refuse(error);
    return client_.reading();
  }

  // Output
  void reply(std::uint32_t id, const protocol::Reply& reply) override {
    queue(codec_.encode_reply(id, reply));
  }
  void reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message) override {
    queue(codec_.encode_error(id, code, message));
  }
  void push(const std::string& /*room*/, const gw::fanout::MessagePtr& message) override {
    queue(codec_.encode_push(message->text));
  }
  void disconnect(std::uint16_t code, std::string_view reason, bool reconnect) override {
    queue(codec_.encode_disconnect(code, reason, reconnect));
    closed_ = true;
  }
  void close_now(protocol::DisconnectCode code) override {
    // Safety: DisconnectCode's underlying type is std::uint16_t.
    closed_now_ = static_cast<std::uint16_t>(code);
    closed_ = true;
  }

  // The lines written since the last call (the socket drained).
  std::vector<std::string> take() {
    std::vector<std::string> out;
    out.swap(lines_);
    queued_bytes_ = 0;
    return out;
  }
  [[nodiscard]] bool closed() const { return closed_; }
  [[nodiscard]] std::optional<std::uint16_t> closed_now() const { return closed_now_; }
  [[nodiscard]] gw::client::Client& client() { return client_; }

 private:
  void queue(std::string line) {
    if (closed_) return;
    queued_bytes_ += line.size();
    lines_.push_back(std::move(line));
    if (queued_bytes_ > queue_bound_ && !slow_reported_) {
      slow_reported_ = true;
      // Safety: a backlog is far below 2^63 bytes.
      client_.close_slow_consumer("a push", static_cast<std::int64_t>(queued_bytes_));
    }
  }

  std::size_t queue_bound_;
  TextCodec codec_;
  std::vector<std::string> lines_;
  std::size_t queued_bytes_ = 0;
  bool slow_reported_ = false;
  bool closed_ = false;
  std::optional<std::uint16_t> closed_now_;
  gw::client::Client client_;
};

// One shard's worth of the server's parts, run by the test thread.
class ClientCore : public ::testing::Test {
 protected:
  ClientCore() : pool_(1), state_(options(), registry_) {
    state_.shards.push_back(
        std::make_unique<gw::ShardState>(0, pool_[0].ctx, options_.client.write_delay));
    state_.dev_mode = true;
    state_.gw = gw::client::ConnectionMetrics::registered(registry_);
    broker_ = std::make_unique<gw::broker::MemoryBroker>(
        options_, pool_,
        [this](unsigned shard, const std::string& room, const gw::fanout::MessagePtr& message) {
          state_.shards[shard]->hub.deliver(room, message);
        },
        registry_);
    state_.broker = broker_.get();
    state_.pool = &pool_;
  }
  ~ClientCore() override {
    clients_.clear();
    run();
    broker_->stop();
  }

  const gw::Options& options() {
    options_.client.write_delay = std::chrono::milliseconds(0);
    return options_;
  }

  FakeTransport& connect(const std::string& user, std::size_t queue_bound = 1 << 20,
                         gw::client::Setup setup = {}) {
    clients_.push_back(FakeTransport::open(state_, pool_[0].ctx, queue_bound, std::move(setup)));
    FakeTransport& t = *clients_.back();
    t.receive("1 connect " + user);
    run();
    const auto lines = t.take();
    EXPECT_EQ(lines, std::vector<std::string>{"1 connected " + user});
    return t;
  }

  // Runs the shard until it has nothing ready: every broker answer and
  // delivery the last commands caused.
  void run() {
    for (int i = 0; i < 100; ++i) {
      pool_[0].ctx.restart();
      if (pool_[0].ctx.poll() == 0) return;
    }
  }

  gw::Options options_;
  metrics::Registry registry_;
  gw::ShardPool pool_;
  gw::ServerState state_;
  std::unique_ptr<gw::broker::MemoryBroker> broker_;
  std::vector<std::shared_ptr<FakeTransport>> clients_;
};

// "<id> subscribed <epoch> <offset> ..." -> {epoch, offset}.
protocol::StreamPosition position_of(const std::string& reply) {
  std::istringstream words(reply);
  std::string id, what;
  protocol::StreamPosition p;
  words >> id >> what >> p.epoch >> p.offset;
  return p;
}

TEST_F(ClientCore, CommandsBeforeConnectAreRefused) {
  clients_.push_back(FakeTransport::open(state_, pool_[0].ctx, 1 << 20));
  FakeTransport& t = *clients_.back();
  t.receive("7 subscribe lobby");
  run();
  const auto lines = t.take();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0].rfind("7 error ", 0), 0U) << lines[0];
  EXPECT_NE(lines[0].find("send connect first"), std::string::npos) << lines[0];
  EXPECT_FALSE(t.closed());
  // A line with no id cannot be answered: the connection ends.
  t.receive("ping");
  run();
  EXPECT_TRUE(t.closed());
}

TEST_F(ClientCore, PublishReachesEverySubscriberThroughTheCodec) {
  FakeTransport& alice = connect("alice");
  FakeTransport& bob = connect("bob");
  alice.receive("2 subscribe lobby");
  bob.receive("2 subscribe lobby");
  run();
  const auto a = alice.take();
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].rfind("2 subscribed ", 0), 0U) << a[0];
  EXPECT_EQ(position_of(a[0]).offset, 0U);
  bob.take();

  bob.receive("3 publish lobby {\"text\":\"hi\"}");
  run();
  const auto pushed = alice.take();
  ASSERT_EQ(pushed.size(), 1U);
  // The codec wrapped the canonical line: the push went through it.
  EXPECT_EQ(pushed[0].rfind("push {", 0), 0U) << pushed[0];
  EXPECT_NE(pushed[0].find(R"({"text":"hi"})"), std::string::npos) << pushed[0];
  // The publisher, subscribed too, gets its reply and the same push (the
  // broker promises no order between the two).
  auto b = bob.take();
  std::sort(b.begin(), b.end());
  EXPECT_EQ(b, (std::vector<std::string>{"3 published 1", pushed[0]}));
}

TEST_F(ClientCore, ResubscribingFromAPositionRecoversWhatWasMissed) {
  FakeTransport& reader = connect("reader");
  FakeTransport& writer = connect("writer");
  reader.receive("2 subscribe lobby");
  run();
  const protocol::StreamPosition start = position_of(reader.take().at(0));
  writer.receive("2 publish lobby {\"n\":1}\n3 publish lobby {\"n\":2}");
  run();
  EXPECT_EQ(reader.take().size(), 2U);

  reader.receive("3 unsubscribe lobby");
  run();
  EXPECT_EQ(reader.take(), std::vector<std::string>{"3 ok"});
  writer.receive("4 publish lobby {\"n\":3}\n5 publish lobby {\"n\":4}");
  run();
  EXPECT_TRUE(reader.take().empty());

  // Back from offset 2 of the same epoch: publications 3 and 4, in the reply.
  reader.receive("4 subscribe lobby " + start.epoch + " 2");
  run();
  const auto back = reader.take();
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(back[0], "4 subscribed " + start.epoch + " 4 recovered=1 publications=2");
  // From an epoch the stream never had: nothing recovered, told so.
  reader.receive("5 unsubscribe lobby\n6 subscribe lobby other-epoch 1");
  run();
  const auto fresh = reader.take();
  ASSERT_EQ(fresh.size(), 2U);
  EXPECT_EQ(fresh[1], "6 subscribed " + start.epoch + " 4 recovered=0 publications=0");
}

// A lost stream (a cluster stream reset: fanout::Subscriber::stream_lost)
// under a protocol whose clients subscribe again: the room alone is left
// with an unsubscribe push (2500), its deliveries stop at once, and
// subscribing again from the last position recovers what was published
// meanwhile; the other rooms go on. Under one whose clients reconnect
// instead, the connection is closed with 3005.
TEST_F(ClientCore, ALostStreamIsRecoveredByResubscribingThatRoomAlone) {
  gw::client::Setup resubscribes;
  resubscribes.resubscribes_lost_streams = true;
  FakeTransport& reader = connect("reader", 1 << 20, resubscribes);
  FakeTransport& writer = connect("writer");
  reader.receive("2 subscribe lobby\n3 subscribe news");
  run();
  const protocol::StreamPosition start = position_of(reader.take().at(0));
  writer.receive("2 publish lobby {\"n\":1}");
  run();
  EXPECT_EQ(reader.take().size(), 1U);

  reader.client().stream_lost("lobby");
  // Taken out of the room's deliveries at once, before its unsubscribe
  // (posted) runs: a delivery now would follow the hole.
  state_.shards[0]->hub.deliver("lobby", gw::fanout::make_message(R"({"pub":{"room":"lobby"}})"));
  EXPECT_TRUE(reader.take().empty());
  run();
  EXPECT_EQ(reader.take(),
            std::vector<std::string>{
                R"(push {"unsubscribe":{"room":"lobby","code":2500,"reason":"stream lost",)"
                R"("resubscribe":true}})"});
  EXPECT_FALSE(reader.closed());
  EXPECT_EQ(state_.shards[0]->hub.subscribers("lobby").size(), 0U);

  writer.receive("3 publish lobby {\"n\":2}\n4 publish news {\"n\":3}");
  run();
  const auto news = reader.take();
  ASSERT_EQ(news.size(), 1U) << "the other room goes on";
  EXPECT_NE(news[0].find(R"({"n":3})"), std::string::npos) << news[0];
  // Subscribing again from offset 1 recovers publication 2.
  reader.receive("4 subscribe lobby " + start.epoch + " 1");
  run();
  EXPECT_EQ(reader.take(), std::vector<std::string>{"4 subscribed " + start.epoch +
                                                    " 2 recovered=1 publications=1"});

  FakeTransport& reconnects = connect("other");
  reconnects.receive("2 subscribe lobby");
  run();
  reconnects.take();
  reconnects.client().stream_lost("lobby");
  EXPECT_TRUE(reconnects.closed());
  EXPECT_EQ(reconnects.take(), std::vector<std::string>{"disconnect 3005 stream reset"});
}

// The server API's unsubscribe (Client::server_unsubscribe): pushed only to
// a subscribed room, after the reply of a subscribe still in flight.
TEST_F(ClientCore, AServerUnsubscribeIsPushedAfterTheSubscribeReply) {
  FakeTransport& t = connect("alice");
  t.client().server_unsubscribe("lobby", protocol::UnsubscribeCode::server);
  run();
  EXPECT_TRUE(t.take().empty());
  t.receive("2 subscribe lobby");
  t.client().server_unsubscribe("lobby", protocol::UnsubscribeCode::server);
  run();
  const auto lines = t.take();
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].rfind("2 subscribed ", 0), 0U) << lines[0];
  EXPECT_EQ(lines[1], R"(push {"unsubscribe":{"room":"lobby","code":2000,)"
                      R"("reason":"server unsubscribe","resubscribe":false}})");
  EXPECT_EQ(state_.shards[0]->hub.subscribers("lobby").size(), 0U);
  t.receive("3 unsubscribe lobby");
  run();
  EXPECT_EQ(t.take().at(0).rfind("3 error ", 0), 0U) << "no longer subscribed";
}

// The server API's subscribe (Client::server_subscribe): a subscribe push
// with the room's position once the broker answered; then the room's
// publications; a second one changes nothing.
TEST_F(ClientCore, AServerSubscribeIsPushedWithItsPosition) {
  FakeTransport& t = connect("alice");
  FakeTransport& writer = connect("bob");
  writer.receive("2 publish news {\"n\":1}");
  run();
  writer.take();
  t.client().server_subscribe("news");
  run();
  const auto lines = t.take();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0].rfind(R"(push {"subscribe":{"room":"news","epoch":")", 0), 0U) << lines[0];
  EXPECT_NE(lines[0].find(R"("offset":1}})"), std::string::npos) << lines[0];
  t.client().server_subscribe("news");
  run();
  EXPECT_TRUE(t.take().empty()) << "already subscribed: nothing";
  writer.receive("3 publish news {\"n\":2}");
  run();
  const auto pushed = t.take();
  ASSERT_EQ(pushed.size(), 1U);
  EXPECT_NE(pushed[0].find(R"({"n":2})"), std::string::npos) << pushed[0];
}

TEST_F(ClientCore, ASlowConsumerIsClosedAndTheRestAreServed) {
  FakeTransport& slow = connect("slow", 200);
  FakeTransport& fast = connect("fast");
  slow.receive("2 subscribe lobby");
  fast.receive("2 subscribe lobby");
  run();
  slow.take();
  fast.take();
  const auto before = state_.gw.slow_consumers->value();

  // The slow one never drains; the fast one does after every publication.
  const std::string body = R"({"pad":")" + std::string(100, 'x') + R"("})";
  for (int i = 1; i <= 5; ++i) {
    fast.receive(std::to_string(10 + i) + " publish lobby " + body);
    run();
    EXPECT_EQ(fast.take().size(), 2U) << "publication " << i;
  }
  EXPECT_TRUE(slow.closed());
  EXPECT_EQ(slow.closed_now(), static_cast<std::uint16_t>(protocol::DisconnectCode::slow_consumer));
  EXPECT_EQ(state_.gw.slow_consumers->value(), before + 1);
  // Closed, it takes no more commands, and the room goes on without it.
  EXPECT_FALSE(slow.client().reading());
  slow.client().finish();
  EXPECT_EQ(state_.shards[0]->hub.subscribers("lobby").size(), 1U);
  fast.receive("20 publish lobby {}");
  run();
  EXPECT_EQ(fast.take().size(), 2U);
}

}  // namespace
}  // namespace herald::test
