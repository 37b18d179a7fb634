// The outbound queue (src/gateway/ws/outbound_queue): random pushes and
// partial writes, the bytes it hands out read back by Beast as a WebSocket
// client (an independent reader of our framing), and the backlog invariant
// checked after every step against a model that counts frames. The same
// with permessage-deflate: Beast inflating, and zlib inflating the payload
// of a compressed message to the plain twin's bytes.
#include "gateway/ws/outbound_queue.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <array>
#include <atomic>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "gateway/ws/deflate_codec.hpp"
#include "gateway/ws/frame_header.hpp"
#include "support/zlib_oracle.hpp"

namespace herald::test {
namespace {

using gateway::fanout::make_message;
using gateway::fanout::MessagePtr;
using gateway::ws::OutboundQueue;

// Reads a server's byte stream as a client would; returns each data message
// and "PING" for each ping, in order.
// `deflate`: both ends negotiate permessage-deflate, so the client inflates.
std::vector<std::string> read_as_client(const std::string& wire, bool deflate = false) {
  namespace beast = boost::beast;
  namespace websocket = beast::websocket;
  boost::asio::io_context ioc;
  beast::test::stream client_end(ioc);
  beast::test::stream server_end(ioc);
  client_end.connect(server_end);
  websocket::stream<beast::test::stream&> client(client_end);
  websocket::stream<beast::test::stream&> server(server_end);
  if (deflate) {
    websocket::permessage_deflate pmd;
    pmd.client_enable = true;
    pmd.server_enable = true;
    client.set_option(pmd);
    server.set_option(pmd);
  }
  // A real handshake between the two ends, then our bytes as the server's.
  beast::error_code accept_ec, handshake_ec;
  server.async_accept([&](beast::error_code ec) { accept_ec = ec; });
  client.async_handshake("localhost", "/ws", [&](beast::error_code ec) { handshake_ec = ec; });
  ioc.run();
  EXPECT_FALSE(accept_ec || handshake_ec) << accept_ec.message() << handshake_ec.message();
  client_end.append(wire);
  server_end.close();
  std::vector<std::string> out;
  client.control_callback([&out](websocket::frame_type kind, beast::string_view) {
    if (kind == websocket::frame_type::ping) out.push_back("PING");
  });
  for (;;) {
    beast::flat_buffer b;
    beast::error_code ec;
    client.read(b, ec);
    if (ec) break;
    const auto d = b.cdata();
    // Safety: a flat_buffer's readable bytes are one contiguous char range.
    out.emplace_back(static_cast<const char*>(d.data()), d.size());
  }
  return out;
}

// Everything the queue still owes, as a socket that takes it all would see it.
std::string drain(OutboundQueue& q) {
  std::string wire;
  for (;;) {
    std::array<iovec, 8> iov{};
    const std::size_t n = q.gather(iov);
    if (n == 0) return wire;
    std::size_t offered = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wire.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
      offered += iov[i].iov_len;
    }
    q.consume(offered);
  }
}

void random_partial_writes(bool deflate) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::atomic<std::int64_t> gauge{0};
    std::string wire;
    std::int64_t model_backlog = 0;
    std::vector<std::string> pushed;  // texts in push order
    std::size_t pings = 0;
    {
      OutboundQueue q(gauge);
      if (deflate) q.enable_deflate();
      std::deque<std::int64_t> unwritten;  // weights of frames not yet written
      int next = 0;
      auto push = [&] {
        // Short texts (a message of them may go plain) and long ones.
        std::string text = "m" + std::to_string(next++) + std::string(rng() % 300, 'x');
        pushed.push_back(text);
        model_backlog += static_cast<std::int64_t>(text.size() + 1);
        unwritten.push_back(static_cast<std::int64_t>(text.size() + 1));
        q.push(make_message(std::move(text)));
      };
      for (int step = 0; step < 60; ++step) {
        const unsigned what = rng() % 10;
        if (what < 5) {
          push();
        } else if (what == 5 && pings < 3) {
          q.push_control(gateway::ws::control_frame(gateway::ws::Opcode::ping, "p"));
          ++pings;
        } else {
          std::array<iovec, 8> iov{};
          const std::size_t n = q.gather(std::span<iovec>(iov.data(), 1 + rng() % 8));
          std::size_t offered = 0;
          for (std::size_t i = 0; i < n; ++i) offered += iov[i].iov_len;
          if (offered == 0) continue;
          // The kernel takes any part of what was offered.
          std::size_t take = rng() % 3 == 0 ? offered : rng() % (offered + 1);
          std::size_t left = take;
          for (std::size_t i = 0; i < n && left > 0; ++i) {
            const std::size_t k = std::min(left, iov[i].iov_len);
            wire.append(static_cast<const char*>(iov[i].iov_base), k);
            left -= k;
          }
          const auto w = q.consume(take);
          for (std::size_t i = 0; i < w.frames; ++i) {
            model_backlog -= unwritten.front();
            unwritten.pop_front();
          }
        }
        ASSERT_EQ(q.backlog_bytes(), model_backlog);
        ASSERT_EQ(gauge.load(), model_backlog);
      }
      wire += drain(q);
      EXPECT_TRUE(q.empty());
      EXPECT_EQ(q.backlog_bytes(), 0);
    }
    EXPECT_EQ(gauge.load(), 0);
    // Every frame arrives once, in order, as lines of the messages.
    std::vector<std::string> lines;
    std::size_t seen_pings = 0;
    for (const std::string& m : read_as_client(wire, deflate)) {
      if (m == "PING") {
        ++seen_pings;
        continue;
      }
      std::size_t start = 0;
      for (;;) {
        const std::size_t nl = m.find('\n', start);
        lines.push_back(m.substr(start, nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
    EXPECT_EQ(lines, pushed) << "round " << round;
    EXPECT_EQ(seen_pings, pings);
  }
}

TEST(OutboundQueue, RandomPartialWritesGiveTheSameStreamAndKeepTheBacklog) {
  random_partial_writes(false);
}

TEST(OutboundQueue, CompressedRandomPartialWritesGiveTheSameStreamAndKeepTheBacklog) {
  random_partial_writes(true);
}

// The payload of the one message in `wire` (a server frame), and its RSV1.
std::pair<std::string, bool> payload_of(const std::string& wire) {
  const auto b1 = static_cast<unsigned char>(wire.at(1));
  std::size_t header = 2;
  if (b1 == 126) header = 4;
  if (b1 == 127) header = 10;
  return {wire.substr(header), (static_cast<unsigned char>(wire[0]) & 0x40) != 0};
}

TEST(OutboundQueue, ACompressedMessageInflatesToItsPlainTwinAndSharesTheFramesBytes) {
  // Chat-like publications: one message of three shared frames.
  std::vector<MessagePtr> frames;
  for (int i = 0; i < 3; ++i) {
    frames.push_back(make_message(
        R"({"push":{"room":"chat:lobby","offset":)" + std::to_string(i) +
        R"(,"pub":{"data":{"user":"alice","text":"Is anyone going to the meeting this afternoon? I can share my notes from last week."}}}})"));
  }
  std::atomic<std::int64_t> gauge{0};
  OutboundQueue plain(gauge);
  OutboundQueue packed(gauge);
  packed.enable_deflate();
  for (const MessagePtr& f : frames) {
    plain.push(f);
    packed.push(f);
  }
  const auto [plain_payload, plain_rsv1] = payload_of(drain(plain));
  const auto [packed_payload, packed_rsv1] = payload_of(drain(packed));
  EXPECT_FALSE(plain_rsv1);
  EXPECT_TRUE(packed_rsv1);
  EXPECT_LT(packed_payload.size(), plain_payload.size());
  EXPECT_EQ(zlib_inflate(packed_payload), plain_payload);
  // Each frame was compressed once, and a second queue sends the very same
  // bytes (the frame's, shared).
  const std::string* first = &frames[0]->deflated(gateway::ws::deflate_piece);
  OutboundQueue again(gauge);
  again.enable_deflate();
  again.push(frames[0]);
  std::array<iovec, 8> iov{};
  ASSERT_EQ(again.gather(iov), 2u);
  EXPECT_EQ(iov[1].iov_base, first->data());
  EXPECT_EQ(iov[1].iov_len, first->size() - gateway::ws::kDeflateTail.size());
  again.drop_queued();
}

TEST(OutboundQueue, AMessageThatCompressionWouldGrowGoesPlain) {
  std::atomic<std::int64_t> gauge{0};
  OutboundQueue q(gauge);
  q.enable_deflate();
  q.push(make_message(R"({"id":1,"result":{}})"));
  const std::string wire = drain(q);
  const auto [payload, rsv1] = payload_of(wire);
  EXPECT_FALSE(rsv1);
  EXPECT_EQ(payload, R"({"id":1,"result":{}})");
  EXPECT_EQ(read_as_client(wire, true), std::vector<std::string>{R"({"id":1,"result":{}})"});
}

TEST(OutboundQueue, DropKeepsTheOpenMessageWhole) {
  std::atomic<std::int64_t> gauge{0};
  OutboundQueue q(gauge);
  q.push(make_message("first"));
  q.push(make_message("second"));
  std::array<iovec, 8> iov{};
  ASSERT_GT(q.gather(iov), 0u);
  EXPECT_EQ(q.consume(3).frames, 0u);  // part of the header and "f"
  q.push(make_message("third"));       // queued behind the open message
  q.drop_queued();                     // a slow consumer: "third" goes
  EXPECT_EQ(q.backlog_bytes(), 6 + 7);
  const std::string wire = drain(q);
  EXPECT_EQ(q.backlog_bytes(), 0);
  EXPECT_EQ(gauge.load(), 0);
  EXPECT_EQ(wire, std::string("irst\nsecond"));  // the rest of the first message only
}

TEST(OutboundQueue, DropTakesUnstartedControlFramesButFinishesAStartedOne) {
  using gateway::ws::control_frame;
  using gateway::ws::Opcode;
  std::atomic<std::int64_t> gauge{0};
  OutboundQueue q(gauge);
  q.push_control(control_frame(Opcode::pong, "a"));
  q.drop_queued();  // a closing connection owes no pong it has not started
  EXPECT_TRUE(q.empty());
  const std::string pong = control_frame(Opcode::pong, "b");
  q.push_control(pong);
  std::array<iovec, 8> iov{};
  ASSERT_EQ(q.gather(iov), 1u);
  q.consume(1);     // the socket took one byte of it
  q.drop_queued();  // the rest must still go, or the stream is corrupt
  EXPECT_EQ(drain(q), pong.substr(1));
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace herald::test
