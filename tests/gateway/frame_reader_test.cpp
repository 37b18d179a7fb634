// The WebSocket frame reader (src/gateway/ws/frame_reader) against RFC 6455's
// cases, each with its expected transcript and checked against Beast reading
// the same bytes (tests/support/ws_frame_oracle.hpp); then random frame
// sequences, valid and broken, against Beast alone. Compressed messages
// (permessage-deflate negotiated) against Beast with its own inflater.
#include "gateway/ws/frame_reader.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gateway/ws/frame_header.hpp"
#include "support/ws_client_frame.hpp"
#include "support/ws_frame_oracle.hpp"
#include "support/zlib_oracle.hpp"

namespace herald::test {
namespace {

constexpr std::size_t kMax = 1000;

using FrameSpec = ClientFrame;

std::string frame(const FrameSpec& f) {
  return encode(f);
}

std::string close_payload(std::uint16_t code, const std::string& reason = "") {
  std::string p;
  p += static_cast<char>(code >> 8);
  p += static_cast<char>(code & 0xff);
  return p + reason;
}

struct Case {
  std::string name;
  std::string bytes;
  std::string expected;
};

std::vector<Case> cases() {
  const std::string euro = "\xE2\x82\xAC";       // U+20AC, 3 bytes
  const std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600, 4 bytes
  const std::string big(kMax, 'x');
  std::vector<Case> c = {
      {"text", frame({1, "hello"}), "T:hello\nEOF\n"},
      {"empty text", frame({1, ""}), "T:\nEOF\n"},
      {"binary", frame({2, "\x01\x02"}), "B:\x01\x02\nEOF\n"},
      {"two messages", frame({1, "a"}) + frame({1, "b"}), "T:a\nT:b\nEOF\n"},
      {"fragmented", frame({1, "hel", false}) + frame({0, "lo"}), "T:hello\nEOF\n"},
      {"fragments with a ping between",
       frame({1, "a", false}) + frame({9, "p"}) + frame({0, "b", false}) + frame({0, "c"}),
       "PING:p\nT:abc\nEOF\n"},
      {"empty fragments", frame({1, "", false}) + frame({0, "", false}) + frame({0, ""}),
       "T:\nEOF\n"},
      {"ping", frame({9, "payload"}), "PING:payload\nEOF\n"},
      {"pong", frame({10, "x"}), "PONG\nEOF\n"},
      {"close with code and reason", frame({8, close_payload(1000, "bye")}), "CLOSE:1000:bye\n"},
      {"close without payload", frame({8, ""}), "CLOSE:1005:\n"},
      {"close 3000", frame({8, close_payload(3000)}), "CLOSE:3000:\n"},
      {"close 4999", frame({8, close_payload(4999)}), "CLOSE:4999:\n"},
      {"close 1013", frame({8, close_payload(1013)}), "CLOSE:1013:\n"},
      {"close ends the stream", frame({8, close_payload(1001)}) + frame({1, "late"}),
       "CLOSE:1001:\n"},
      {"close of one byte", frame({8, "\x03"}), "ERR:1002\n"},
      {"close code 999", frame({8, close_payload(999)}), "ERR:1002\n"},
      {"close code 1004", frame({8, close_payload(1004)}), "ERR:1002\n"},
      {"close code 1005", frame({8, close_payload(1005)}), "ERR:1002\n"},
      {"close code 1006", frame({8, close_payload(1006)}), "ERR:1002\n"},
      {"close code 1014", frame({8, close_payload(1014)}), "ERR:1002\n"},
      {"close code 2999", frame({8, close_payload(2999)}), "ERR:1002\n"},
      {"close reason not UTF-8", frame({8, close_payload(1000, "\xff")}), "ERR:1007\n"},
      {"text not UTF-8", frame({1, "a\xff"}), "ERR:1007\n"},
      {"text with a surrogate", frame({1, "\xED\xA0\x80"}), "ERR:1007\n"},
      {"text with an overlong encoding", frame({1, "\xC0\xAF"}), "ERR:1007\n"},
      {"binary need not be UTF-8", frame({2, "\xff"}), "B:\xff\nEOF\n"},
      {"UTF-8 split over fragments",
       frame({1, euro.substr(0, 1), false}) +
           frame({0, euro.substr(1) + emoji.substr(0, 2), false}) + frame({0, emoji.substr(2)}),
       "T:" + euro + emoji + "\nEOF\n"},
      {"fail fast: invalid fragment before the message ends",
       frame({1, "ok\xff", false}) + frame({9, "p"}) + frame({0, "x"}), "ERR:1007\n"},
      {"fail fast: a code point that cannot become valid (F4 90)",
       frame({1, "\xF4\x90", false}) + frame({9, "p"}) + frame({0, "\x80\x80"}), "ERR:1007\n"},
      {"message ends inside a code point", frame({1, "\xE2\x82", false}) + frame({0, ""}),
       "ERR:1007\n"},
      {"unmasked", frame({.opcode = 1, .payload = "x", .masked = false}), "ERR:1002\n"},
      {"RSV1", frame({.opcode = 1, .payload = "x", .rsv = 4}), "ERR:1002\n"},
      {"RSV3 on a ping", frame({.opcode = 9, .payload = "x", .rsv = 1}), "ERR:1002\n"},
      {"reserved data opcode", frame({3, "x"}), "ERR:1002\n"},
      {"reserved control opcode", frame({11, "x"}), "ERR:1002\n"},
      {"fragmented ping", frame({9, "x", false}), "ERR:1002\n"},
      {"ping over 125 bytes", frame({9, std::string(126, 'p')}), "ERR:1002\n"},
      {"continuation first", frame({0, "x"}), "ERR:1002\n"},
      {"text inside a fragmented message", frame({1, "a", false}) + frame({1, "b"}), "ERR:1002\n"},
      {"non-minimal 16-bit length", frame({.opcode = 1, .payload = "x", .length_form = 126}),
       "ERR:1002\n"},
      {"non-minimal 64-bit length",
       frame({.opcode = 1, .payload = std::string(200, 'y'), .length_form = 127}), "ERR:1002\n"},
      {"message at the limit", frame({1, big}), "T:" + big + "\nEOF\n"},
      {"message over the limit", frame({1, big + "x"}), "ERR:1009\n"},
      {"fragments over the limit", frame({1, big, false}) + frame({0, "x"}), "ERR:1009\n"},
      {"incomplete header", frame({1, "hello"}).substr(0, 3), "EOF\n"},
      {"incomplete payload", frame({1, "hello"}).substr(0, 8), "EOF\n"},
  };
  return c;
}

TEST(FrameReader, NamedCasesMatchExpectedAndBeast) {
  std::set<std::string> names;
  for (const Case& c : cases()) {
    ASSERT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    const Transcript ours = frame_transcript_ours(c.bytes, kMax);
    EXPECT_EQ(joined(ours), c.expected) << c.name;
    const Transcript beast = frame_transcript_beast(c.bytes, kMax);
    EXPECT_TRUE(transcripts_agree(ours, beast)) << c.name << "; Beast:\n" << joined(beast);
  }
}

TEST(FrameReader, LargeFrameLengthsAreRefusedFromTheHeader) {
  // A 64-bit length with the top bit set, or just huge: 1009 before any
  // payload arrives (the input holds the header alone).
  std::string huge = frame({.opcode = 2, .payload = std::string(70'000, 'z')});
  huge.resize(14);
  huge[2] = static_cast<char>(0x80);
  EXPECT_EQ(joined(frame_transcript_ours(huge, 1 << 20)), "ERR:1009\n");
  EXPECT_EQ(joined(frame_transcript_beast(huge, 1 << 20)), "ERR:1009\n");
}

TEST(FrameReader, FrameSizeIsKnownFromTheHeader) {
  const std::string f = frame({1, std::string(300, 'a')});
  EXPECT_EQ(gateway::ws::FrameReader::frame_size(std::span<const char>(f.data(), 3)), 0u);
  EXPECT_EQ(gateway::ws::FrameReader::frame_size(std::span<const char>(f.data(), 8)), f.size());
}

TEST(FrameReader, ServerFrameHeadersUseTheShortestLength) {
  using gateway::ws::Opcode;
  using gateway::ws::server_frame_header;
  EXPECT_EQ(server_frame_header(Opcode::text, 125).view(), std::string("\x81\x7d", 2));
  EXPECT_EQ(server_frame_header(Opcode::text, 126).view(), std::string("\x81\x7e\x00\x7e", 4));
  EXPECT_EQ(server_frame_header(Opcode::text, 65535).view(), std::string("\x81\x7e\xff\xff", 4));
  EXPECT_EQ(server_frame_header(Opcode::text, 65536).view(),
            std::string("\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10));
  EXPECT_EQ(gateway::ws::close_frame(3002, "slow").substr(0, 4),
            std::string("\x88\x06\x0b\xba", 4));
}

std::string hello_packed() {
  return zlib_deflate("hello");
}

TEST(FrameReader, CompressedMessagesMatchExpectedAndBeast) {
  const std::string hello = hello_packed();
  const std::string chat_text = R"({"room":"chat","data":{"text":"hi there, hi there"}})";
  const std::string chat = zlib_deflate(chat_text);
  const std::string at_limit(kMax, 'a');
  // Far more than the limit inflated, yet a compressed frame under it.
  const std::string bomb = zlib_deflate(std::string(500'000, 'a'), 9);
  ASSERT_LT(bomb.size(), kMax);
  const std::vector<Case> compressed = {
      {"compressed text", frame({.opcode = 1, .payload = hello, .rsv = 4}), "T:hello\nEOF\n"},
      {"compressed binary", frame({.opcode = 2, .payload = hello, .rsv = 4}), "B:hello\nEOF\n"},
      {"compressed then plain",
       frame({.opcode = 1, .payload = chat, .rsv = 4}) + frame({1, "plain"}),
       "T:" + chat_text + "\nT:plain\nEOF\n"},
      {"compressed over fragments with a ping between",
       frame({.opcode = 1, .payload = chat.substr(0, 5), .fin = false, .rsv = 4}) +
           frame({9, "p"}) + frame({.opcode = 0, .payload = chat.substr(5, 7), .fin = false}) +
           frame({0, chat.substr(12)}),
       "PING:p\nT:" + chat_text + "\nEOF\n"},
      {"compressed at the limit once inflated",
       frame({.opcode = 1, .payload = zlib_deflate(at_limit), .rsv = 4}),
       "T:" + at_limit + "\nEOF\n"},
      {"compressed one byte over the limit once inflated",
       frame({.opcode = 1, .payload = zlib_deflate(at_limit + "a"), .rsv = 4}), "ERR:1009\n"},
      {"a zip bomb", frame({.opcode = 1, .payload = bomb, .rsv = 4}), "ERR:1009\n"},
      {"compressed text not UTF-8",
       frame({.opcode = 1, .payload = zlib_deflate("a\xff"), .rsv = 4}), "ERR:1007\n"},
      {"RSV1 on a continuation",
       frame({.opcode = 1, .payload = "a", .fin = false}) +
           frame({.opcode = 0, .payload = hello, .rsv = 4}),
       "ERR:1002\n"},
      {"RSV1 on a ping", frame({.opcode = 9, .payload = "p", .rsv = 4}), "ERR:1002\n"},
      {"RSV2 on compressed text", frame({.opcode = 1, .payload = hello, .rsv = 6}), "ERR:1002\n"},
  };
  for (const Case& c : compressed) {
    const Transcript ours = frame_transcript_ours(c.bytes, kMax, true);
    EXPECT_EQ(joined(ours), c.expected) << c.name;
    const Transcript beast = frame_transcript_beast(c.bytes, kMax, true);
    EXPECT_TRUE(transcripts_agree(ours, beast)) << c.name << "; Beast:\n" << joined(beast);
  }
}

TEST(FrameReader, LargeInflatedMessagesFollowEachOther) {
  // Over the size whose buffer the reader keeps: each is read whole, the
  // next one too (the buffer released between them).
  const std::string a(20'000, 'a');
  const std::string b(30'000, 'b');
  const std::string bytes = frame({.opcode = 1, .payload = zlib_deflate(a), .rsv = 4}) +
                            frame({.opcode = 1, .payload = zlib_deflate(b), .rsv = 4}) +
                            frame({.opcode = 1, .payload = hello_packed(), .rsv = 4});
  const Transcript ours = frame_transcript_ours(bytes, 100'000, true);
  EXPECT_EQ(joined(ours), "T:" + a + "\nT:" + b + "\nT:hello\nEOF\n");
  EXPECT_TRUE(transcripts_agree(ours, frame_transcript_beast(bytes, 100'000, true)));
}

// Where Beast 1.81 cannot be the oracle.
TEST(FrameReader, CompressedCasesBeastReadsOtherwise) {
  // RFC 7692 7.2.3.4 lets a client end a message with a final block
  // (BFINAL 1) instead of an empty stored block; Beast appends 00 00 ff ff
  // after the stream's end and fails, we read the message.
  const std::string final_block =
      frame({.opcode = 1, .payload = zlib_deflate("hello", 6, true), .rsv = 4});
  EXPECT_EQ(joined(frame_transcript_ours(final_block, kMax, true)), "T:hello\nEOF\n");
  // A block of the reserved type 3 (BTYPE 11): no deflate stream. Beast
  // reports a zlib error that names no close code; we close with 1007.
  const std::string bad = frame({.opcode = 1, .payload = "\x07\x00", .rsv = 4});
  EXPECT_EQ(joined(frame_transcript_ours(bad, kMax, true)), "ERR:1007\n");
  // Without the negotiation, the same frame is a protocol error, as Beast says.
  EXPECT_EQ(joined(frame_transcript_ours(bad, kMax)), "ERR:1002\n");
  EXPECT_EQ(joined(frame_transcript_beast(bad, kMax)), "ERR:1002\n");
}

// Random client streams: mostly well-formed frames with the faults above
// mixed in, each compared with Beast's reading of the same bytes.
TEST(FrameReader, RandomStreamsMatchBeast) {
  std::mt19937 rng(20261201);
  const std::vector<std::string> pieces = {
      "a", "hello", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xff", "\xC3", "\xED\xA0\x80", "\n", "{}"};
  auto payload = [&](std::size_t max_pieces) {
    std::string p;
    const std::size_t n = rng() % (max_pieces + 1);
    for (std::size_t i = 0; i < n; ++i) {
      // Mostly valid UTF-8; the invalid pieces come one time in four.
      std::size_t k = rng() % pieces.size();
      if ((k == 4 || k == 5 || k == 6) && rng() % 4 != 0) k = 0;
      p += pieces[k];
    }
    return p;
  };
  int mismatches = 0;
  for (int iter = 0; iter < 20'000 && mismatches < 5; ++iter) {
    std::string bytes;
    const int frames = 1 + static_cast<int>(rng() % 6);
    bool open = false;
    for (int i = 0; i < frames; ++i) {
      FrameSpec f;
      const unsigned pick = rng() % 20;
      if (pick < 8) {
        f.opcode = open ? 0 : (rng() % 3 == 0 ? 2 : 1);
        f.fin = rng() % 3 != 0;
        open = !f.fin;
        f.payload = payload(4);
      } else if (pick < 11) {
        f.opcode = 9 + rng() % 2;
        f.payload = payload(3);
      } else if (pick < 13) {
        f.opcode = 8;
        const std::uint16_t codes[] = {1000, 1001, 1005, 1006, 1012, 1014, 2000, 3000, 4000, 999};
        f.payload = rng() % 5 == 0 ? payload(1) : close_payload(codes[rng() % 10], payload(2));
      } else if (pick < 15) {
        f.opcode = static_cast<std::uint8_t>(rng() % 16);
        f.fin = rng() % 2 != 0;
        f.payload = payload(2);
      } else if (pick < 17) {
        f.opcode = 1;
        f.payload = std::string(kMax - 5 + rng() % 10, 'q');
      } else {
        f.opcode = open ? 0 : 1;
        f.payload = payload(2);
        f.rsv = rng() % 4 == 0 ? static_cast<std::uint8_t>(rng() % 8) : 0;
        f.masked = rng() % 4 != 0;
        f.length_form = rng() % 3 == 0 ? 126 : 0;
      }
      f.key = static_cast<std::uint32_t>(rng());
      bytes += frame(f);
    }
    if (rng() % 5 == 0) bytes.resize(rng() % (bytes.size() + 1));  // cut short
    const Transcript ours = frame_transcript_ours(bytes, kMax);
    const Transcript beast = frame_transcript_beast(bytes, kMax);
    if (!transcripts_agree(ours, beast)) {
      ++mismatches;
      std::string hex;
      for (char ch : bytes) {
        static constexpr char kHex[] = "0123456789abcdef";
        const auto b = static_cast<unsigned char>(ch);
        hex += kHex[b >> 4];
        hex += kHex[b & 15];
        hex += ' ';
      }
      ADD_FAILURE() << "iteration " << iter << "\nbytes: " << hex << "\nours:\n"
                    << joined(ours) << "Beast:\n"
                    << joined(beast);
    }
  }
}

}  // namespace
}  // namespace herald::test
