// heraldd's own WebSocket framing over a real socket, spoken byte by byte by
// a raw client: what RFC 6455 asks of a server's reading side (close codes
// for each violation, pong for ping, the close handshake) and the bounds on
// what a client can make it queue. The frame reader's rules themselves are
// checked against Beast in frame_reader_test.cpp; this is the session
// acting on them, and every other connection carrying on. Then
// permessage-deflate (client.compression): its negotiation, compressed
// publications inflated by zlib against the plain twin another client
// reads, and compressed client messages, a zip bomb among them.
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <sys/socket.h>
#include <sys/time.h>

#include <optional>
#include <string>
#include <thread>

#include "support/http_client.hpp"
#include "support/ws_client_frame.hpp"
#include "support/zlib_oracle.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

namespace asio = boost::asio;

// A client frame from its first byte (FIN, RSV, opcode) and payload.
std::string client_frame(std::uint8_t first_byte, const std::string& payload, bool masked = true) {
  return encode({.opcode = static_cast<std::uint8_t>(first_byte & 0x0f),
                 .payload = payload,
                 .fin = (first_byte & 0x80) != 0,
                 .masked = masked,
                 .rsv = static_cast<std::uint8_t>((first_byte >> 4) & 0x7)});
}

struct ServerFrame {
  std::uint8_t opcode = 0;
  bool rsv1 = false;  // a compressed message (permessage-deflate)
  std::string payload;
  [[nodiscard]] std::uint16_t close_code() const {
    if (payload.size() < 2) return 0;
    return static_cast<std::uint16_t>((static_cast<std::uint8_t>(payload[0]) << 8) |
                                      static_cast<std::uint8_t>(payload[1]));
  }
};

// A client that writes raw bytes and reads the server's frames itself.
class RawClient {
 public:
  // `extensions`: the Sec-WebSocket-Extensions offer, if any.
  explicit RawClient(std::uint16_t port, const std::string& extensions = "") : socket_(ctx_) {
    socket_.connect({asio::ip::make_address("127.0.0.1"), port});
    // Bounded waits: a server that never answers fails the test (a read
    // times out and counts as the end of the stream) instead of hanging it.
    const timeval timeout{10, 0};
    ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    const std::string upgrade =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
        (extensions.empty() ? "" : "Sec-WebSocket-Extensions: " + extensions + "\r\n") + "\r\n";
    asio::write(socket_, asio::buffer(upgrade));
    asio::read_until(socket_, in_, "\r\n\r\n");
    std::string head(asio::buffers_begin(in_.data()), asio::buffers_end(in_.data()));
    const std::size_t end = head.find("\r\n\r\n") + 4;
    EXPECT_NE(head.find(" 101 "), std::string::npos) << head;
    response_head_ = head.substr(0, end);
    in_.consume(end);
  }

  // The 101's status line and headers.
  [[nodiscard]] const std::string& response_head() const { return response_head_; }

  // The error that stopped the write, if any (a reset: EPIPE or ECONNRESET).
  boost::system::error_code write(const std::string& bytes) {
    boost::system::error_code ec;
    asio::write(socket_, asio::buffer(bytes), ec);
    return ec;
  }

  // The next frame, or nullopt when the server closed the TCP connection.
  std::optional<ServerFrame> next() {
    boost::system::error_code ec;
    if (!fill(2, ec)) return std::nullopt;
    const auto* p = static_cast<const unsigned char*>(in_.data().data());
    ServerFrame f;
    f.opcode = p[0] & 0x0f;
    f.rsv1 = (p[0] & 0x40) != 0;
    EXPECT_EQ(p[1] & 0x80, 0) << "a server frame must not be masked";
    std::size_t header = 2;
    std::uint64_t n = p[1] & 0x7f;
    if (n == 126) header = 4;
    if (n == 127) header = 10;
    if (!fill(header, ec)) return std::nullopt;
    p = static_cast<const unsigned char*>(in_.data().data());
    if (n == 126) n = (std::uint64_t{p[2]} << 8) | p[3];
    if (n == 127) {
      n = 0;
      for (int i = 2; i < 10; ++i) n = (n << 8) | p[i];
    }
    if (!fill(header + n, ec)) return std::nullopt;
    p = static_cast<const unsigned char*>(in_.data().data());
    // Safety: the frame's payload bytes, read as chars.
    f.payload.assign(reinterpret_cast<const char*>(p) + header, n);
    in_.consume(header + n);
    return f;
  }

  // Reads frames until a close frame (returned) or the end of the stream.
  std::optional<ServerFrame> until_close() {
    while (auto f = next()) {
      if (f->opcode == 0x8) return f;
    }
    return std::nullopt;
  }

  // True once the server has closed the TCP connection.
  bool closed_by_server() {
    while (next()) {
    }
    return true;
  }

  // What ended the stream (eof for a FIN, connection_reset for a reset, a
  // timeout when the server never closed); none while it goes on.
  [[nodiscard]] boost::system::error_code end() const { return end_; }

 private:
  bool fill(std::size_t n, boost::system::error_code& ec) {
    while (in_.size() < n) {
      const std::size_t got = socket_.read_some(in_.prepare(64 * 1024), ec);
      if (ec) end_ = ec;
      if (ec) return false;
      in_.commit(got);
    }
    return true;
  }

  asio::io_context ctx_;
  asio::ip::tcp::socket socket_;
  asio::streambuf in_;
  std::string response_head_;
  boost::system::error_code end_;
};

const std::string kConnect = R"({"id":1,"connect":{"user":"raw"}})";

TEST(GatewayFraming, ViolationsCloseWithTheirCodeAndOthersCarryOn) {
  Daemon d({"--client.max_message_bytes", "1KiB"});
  auto bystander = connect_as(d.port, "by");
  struct Violation {
    std::string name;
    std::string bytes;
    std::uint16_t code;
  };
  const Violation violations[] = {
      {"unmasked frame", client_frame(0x81, kConnect, false), 1002},
      {"RSV1 without an extension", client_frame(0xC1, kConnect), 1002},
      {"reserved opcode", client_frame(0x83, "x"), 1002},
      {"fragmented ping", client_frame(0x09, "x"), 1002},
      {"continuation first", client_frame(0x80, "x"), 1002},
      {"text not UTF-8", client_frame(0x81, "\xff\xfe"), 1007},
      {"message over client.max_message_bytes", client_frame(0x81, std::string(1025, 'a')), 1009},
      {"close code 1005 on the wire", client_frame(0x88, std::string("\x03\xed", 2)), 1002},
      // Well-formed, but the protocol is JSON text: a bad request (3500).
      {"binary message", client_frame(0x82, kConnect), 3500},
  };
  for (const Violation& v : violations) {
    RawClient c(d.port);
    c.write(v.bytes);
    auto close = c.until_close();
    ASSERT_TRUE(close) << v.name << ": no close frame";
    EXPECT_EQ(close->close_code(), v.code) << v.name;
    EXPECT_TRUE(c.closed_by_server()) << v.name;
  }
  expect_alive(*bystander, 50);
}

// RFC 6455 §7.1.1/§7.1.7: a refused message's close frame reaches the
// client, followed by a clean end of the stream. The rest of the 256 KiB
// message is still arriving when the server refuses it from the length
// field; closing the socket with it unread would send a reset, which
// destroys the close frame in the client's receive buffer (a browser then
// sees 1006 and reconnects). The server must read and drop it, and end its
// side with a FIN. The test fails on either sign of a reset: the write
// failing, or the stream ending in one instead of an EOF. The pause before reading gives the server
// time to close first, the case that loses the frame; the test passes the same without it.
TEST(GatewayFraming, ARefusedMessagesCloseFrameArrivesWholeThenAFin) {
  Daemon d({"--client.max_message_bytes", "4KiB"});
  for (int run = 0; run < 5; ++run) {
    RawClient c(d.port);
    // One write. It must end: the server reads the rest (to drop it) rather
    // than reset the connection (a reset met here ends the write with EPIPE
    // or ECONNRESET, and the read below then sees no error of its own).
    const boost::system::error_code written =
        c.write(client_frame(0x81, std::string(256 * 1024, 'a')));
    EXPECT_FALSE(written) << "run " << run << ": the write ended with " << written.message();
    std::this_thread::sleep_for(200ms);
    auto close = c.until_close();
    ASSERT_TRUE(close) << "run " << run << ": no close frame; the stream ended with "
                       << c.end().message();
    EXPECT_EQ(close->close_code(), 1009) << "run " << run;
    EXPECT_FALSE(c.next()) << "run " << run << ": a frame after the close frame";
    EXPECT_EQ(c.end(), asio::error::eof) << "run " << run << ": " << c.end().message();
  }
}

// The lingering close is bounded: a refused client that never closes its
// end (and keeps sending) is closed by the server after
// client.handshake_timeout, and counted out.
TEST(GatewayFraming, ARefusedClientThatNeverClosesIsClosedAtTheBound) {
  Daemon d({"--client.max_message_bytes", "4KiB", "--client.handshake_timeout", "300ms",
            "--client.idle_timeout", "60s"});
  RawClient c(d.port);
  c.write(client_frame(0x81, std::string(8 * 1024, 'a')));
  auto close = c.until_close();
  ASSERT_TRUE(close) << c.end().message();
  EXPECT_EQ(close->close_code(), 1009);
  // Still sending, never closing: the drain reads it all, and ends anyway.
  c.write(std::string(64 * 1024, 'b'));
  auto ws_connections = [&] {
    return metric_value(http_get("127.0.0.1", d.port, "/metrics").body, "herald_ws_connections");
  };
  double open = ws_connections();
  for (int i = 0; i < 250 && open != 0; ++i) {
    std::this_thread::sleep_for(20ms);
    c.write(std::string(1024, 'b'));
    open = ws_connections();
  }
  EXPECT_EQ(open, 0) << "the server still holds a refused client that never closed";
}

TEST(GatewayFraming, PingIsAnsweredAndFragmentsAreOneMessage) {
  Daemon d;
  RawClient c(d.port);
  c.write(client_frame(0x89, "are you there"));
  auto pong = c.next();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->opcode, 0xA);
  EXPECT_EQ(pong->payload, "are you there");
  // connect in three fragments with a ping between them.
  c.write(client_frame(0x01, kConnect.substr(0, 5)) + client_frame(0x89, "p") +
          client_frame(0x00, kConnect.substr(5, 10)) + client_frame(0x80, kConnect.substr(15)));
  auto f1 = c.next();
  ASSERT_TRUE(f1);
  auto f2 = c.next();
  ASSERT_TRUE(f2);
  const ServerFrame& reply = f1->opcode == 0x1 ? *f1 : *f2;
  const ServerFrame& other = f1->opcode == 0x1 ? *f2 : *f1;
  EXPECT_EQ(other.opcode, 0xA);
  EXPECT_TRUE(json_has(reply.payload, "/result/client")) << reply.payload;
}

TEST(GatewayFraming, ClientCloseIsEchoedThenTheServerCloses) {
  Daemon d;
  RawClient c(d.port);
  c.write(client_frame(0x81, kConnect));
  ASSERT_TRUE(c.next());
  c.write(client_frame(0x88, std::string("\x0f\xa0", 2) + "bye"));  // 4000
  auto close = c.until_close();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 4000);
  EXPECT_TRUE(c.closed_by_server());
}

TEST(GatewayFraming, PingsFasterThanPongsAreReadMakeASlowConsumer) {
  Daemon d({"--client.max_queue_bytes", "64KiB"});
  auto bystander = connect_as(d.port, "by");
  RawClient c(d.port);
  // 125-byte pings, never reading the pongs: 40 MB of pongs owed is more
  // than the kernel's socket buffers and the queue bound together hold.
  const std::string ping = client_frame(0x89, std::string(125, 'p'));
  std::string burst;
  for (int i = 0; i < 2'000; ++i) burst += ping;
  for (int round = 0; round < 150; ++round) c.write(burst);
  auto close = c.until_close();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 3002);
  expect_alive(*bystander, 60);
}

constexpr const char* kOffer = "permessage-deflate; client_max_window_bits";
constexpr const char* kAnswer =
    "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; "
    "client_no_context_takeover\r\n";

TEST(GatewayDeflate, NegotiatedOnlyWhenOnAndOffered) {
  {
    Daemon on({"--client.compression", "true"});
    EXPECT_NE(RawClient(on.port, kOffer).response_head().find(kAnswer), std::string::npos);
    // An offer the server cannot honour (a smaller window for its shared
    // bytes) is declined; the next one is taken.
    RawClient two(on.port, "permessage-deflate; server_max_window_bits=9, permessage-deflate");
    EXPECT_NE(two.response_head().find(kAnswer), std::string::npos) << two.response_head();
    RawClient none(on.port, "permessage-deflate; server_max_window_bits=9");
    EXPECT_EQ(none.response_head().find("Sec-WebSocket-Extensions"), std::string::npos);
    RawClient plain(on.port);
    EXPECT_EQ(plain.response_head().find("Sec-WebSocket-Extensions"), std::string::npos);
  }
  Daemon off;  // client.compression defaults to false
  RawClient c(off.port, kOffer);
  EXPECT_EQ(c.response_head().find("Sec-WebSocket-Extensions"), std::string::npos);
  c.write(client_frame(0xC1, zlib_deflate(kConnect)));  // compressed, yet not negotiated
  auto close = c.until_close();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 1002);
}

// The lines of a message.
std::vector<std::string> lines_of(const std::string& message) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = message.find('\n', start);
    out.push_back(message.substr(start, nl - start));
    if (nl == std::string::npos) return out;
    start = nl + 1;
  }
}

// Reads `c`'s messages (inflating compressed ones with zlib) until a line
// containing `needle`; that line, or "" at the end of the stream.
std::string line_with(RawClient& c, const std::string& needle, bool* compressed = nullptr) {
  while (auto f = c.next()) {
    if (f->opcode != 0x1) continue;
    const std::string text = f->rsv1 ? zlib_inflate(f->payload) : f->payload;
    for (const std::string& line : lines_of(text)) {
      if (line.find(needle) == std::string::npos) continue;
      if (compressed != nullptr) *compressed = f->rsv1;
      return line;
    }
  }
  return "";
}

TEST(GatewayDeflate, APublicationInflatesToThePlainTwinAndClientsMayCompress) {
  Daemon d({"--client.compression", "true"});
  RawClient packed(d.port, kOffer);
  RawClient plain(d.port);
  // The compressing client's commands arrive compressed (zlib's deflater,
  // not ours), the other's plain.
  packed.write(client_frame(0xC1, zlib_deflate(R"({"id":1,"connect":{"user":"z"}})")));
  EXPECT_NE(line_with(packed, R"("id":1)"), "");
  packed.write(client_frame(0xC1, zlib_deflate(R"({"id":2,"subscribe":{"room":"chat"}})")));
  EXPECT_NE(line_with(packed, R"("id":2)"), "");
  plain.write(client_frame(0x81, R"({"id":1,"connect":{"user":"p"}})"));
  EXPECT_NE(line_with(plain, R"("id":1)"), "");
  plain.write(client_frame(0x81, R"({"id":2,"subscribe":{"room":"chat"}})"));
  EXPECT_NE(line_with(plain, R"("id":2)"), "");
  // A realistic chat message (~300 bytes of JSON text).
  const std::string data =
      R"({"user":"alice","text":"Is anyone going to the planning meeting this afternoon? )"
      R"(I can share my notes from last week, and the draft agenda is in the shared folder )"
      R"(under planning. Let me know before three so I can book the larger room.",)"
      R"("sent_at":"2026-12-02T00:40:00Z","reply_to":null})";
  plain.write(client_frame(0x81, R"({"id":3,"publish":{"room":"chat","data":)" + data + "}}"));
  bool compressed = false;
  const std::string got = line_with(packed, R"({"pub":)", &compressed);
  EXPECT_TRUE(compressed) << "the publication was sent uncompressed";
  EXPECT_EQ(got, line_with(plain, R"({"pub":)"));  // byte for byte
  EXPECT_NE(got.find(data), std::string::npos) << got;
}

TEST(GatewayDeflate, AZipBombClosesWith1009AndOthersCarryOn) {
  Daemon d({"--client.compression", "true", "--client.max_message_bytes", "1KiB"});
  auto bystander = connect_as(d.port, "by");
  RawClient c(d.port, kOffer);
  // 500 KB of one letter: a few hundred bytes compressed, under the limit.
  const std::string bomb = zlib_deflate(std::string(500'000, 'a'), 9);
  ASSERT_LT(bomb.size(), 1024u);
  c.write(client_frame(0xC1, bomb));
  auto close = c.until_close();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 1009);
  EXPECT_TRUE(c.closed_by_server());
  expect_alive(*bystander, 50);
}

}  // namespace
}  // namespace herald::test
