// Fuzz target: the WebSocket frame reader with permessage-deflate
// negotiated (gateway/ws/frame_reader with enable_inflate(), inflating
// through gateway/ws/deflate_codec), against Beast's server-side reader with
// its own inflater on the same client bytes (tests/support/ws_frame_oracle.hpp).
// The first byte picks the message limit (16..4096 bytes), which bounds the
// inflated size too, so zip bombs reach it.
//
// The transcripts must agree as in ws_frames.cpp. Where they part at a
// compressed message, zlib itself is the referee: ours must have done what
// zlib makes of that message (zlib_verdict). Beast 1.81's inflater is not
// zlib, and the fuzzer found it wrong more than once (it grows a message by
// appending the sync tail again, reads an empty message out of a stored
// block whose lengths do not match). Where zlib cannot decide (the message
// never ended, or a header is bad), Beast referees, with these allowances.
// Beast stops a compressed message before ours does. Beast inflates each frame as
// it arrives, into a buffer of its own size, and checks the text as it
// inflates; ours inflates the whole message once its last frame is read,
// stopping at the limit, then checks it. So a message with several faults
// (bytes that do not inflate, text that is not UTF-8, more output than the
// limit, a bad header after it, input that ends) is failed at whichever
// fault each reader meets first, and RFC 6455 7.1.7 asks for no particular
// one. Where Beast stops (1007, 1009, or ZLIB: its inflater refused the
// bytes and named no close code), ours must also stop, after at most the
// control frames Beast never reached, with any close code, at the client's
// close frame, or at the input's end. What ours does at each fault alone is held elsewhere:
// headers to Beast by fuzz_ws_frames (no inflater), the limit and UTF-8 by
// the checks below on everything ours hands out.
//
// Some of Beast's stops are its own faults, and there ours may have read
// the message (checked below like every message ours hands out):
// - ZLIB on a message ended with a final block, which a client may send
//   (RFC 7692 7.2.3.4) and Beast does not read;
// - 1009 on a message whose appended 00 00 ff ff still decodes to literals
//   (the block before it was left open): Beast appends the four octets
//   again for as long as inflating them yields output (read.hpp, `fin &&
//   zs.total_out == 0`), so the message grows until it is over the limit
//   (1009) or the literals it added are not UTF-8 (1007); zlib appends
//   them once (RFC 7692 7.2.2). Found by this target: 4a 67 8d d6
//   inflates to 4 octets.
// And one stop is a policy of ours: a compressed message is held to the
// limit as sent as well as once inflated (docs/protocol.md, 1009), because
// ours keeps its compressed bytes until the last frame; Beast inflates as
// it reads and bounds only the output. So where Beast is still waiting
// for the rest of the input (EOF), ours may have closed with 1009.
// And whatever ours hands out is within the limit, and text is UTF-8.
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "support/ws_frame_oracle.hpp"
#include "support/zlib_inflate.hpp"

namespace {

// The k-th data message of `b` as the client sent it: its frames'
// payloads unmasked and joined, and what its first frame said. nullopt if
// the bytes end first or a header is one this splitter does not follow
// (unmasked, a 64-bit length with its top bit set): headers are Beast's to
// referee. A splitter of its own, so the referee below shares nothing with
// the frame reader under test.
struct SentMessage {
  std::string payload;
  bool compressed = false;
  bool text = false;
};

std::optional<SentMessage> sent_message(std::string_view b, std::size_t k) {
  std::size_t pos = 0, done = 0;
  bool open = false;
  SentMessage cur;
  auto octet = [&](std::size_t at) { return static_cast<std::uint8_t>(b[at]); };
  for (;;) {
    if (b.size() - pos < 2) return std::nullopt;
    const std::uint8_t h0 = octet(pos), h1 = octet(pos + 1);
    pos += 2;
    std::uint64_t len = h1 & 0x7f;
    const std::size_t ext = len == 126 ? 2 : len == 127 ? 8 : 0;
    if (b.size() - pos < ext) return std::nullopt;
    if (ext != 0) len = 0;
    for (std::size_t n = 0; n < ext; ++n) len = len << 8 | octet(pos + n);
    pos += ext;
    if ((h1 & 0x80) == 0 || len >> 63 != 0 || b.size() - pos < 4) return std::nullopt;
    const std::size_t key = pos;
    pos += 4;
    if (b.size() - pos < len) return std::nullopt;
    const auto opcode = h0 & 0x0f;
    if (opcode < 8) {
      if (opcode != 0) cur = {"", (h0 & 0x40) != 0, opcode == 1};
      if (opcode == 0 && !open) return std::nullopt;
      open = true;
      for (std::size_t n = 0; n < len; ++n) {
        cur.payload += static_cast<char>(octet(pos + n) ^ octet(key + n % 4));
      }
      if ((h0 & 0x80) != 0) {
        if (done++ == k) return cur;
        open = false;
      }
    }
    pos += len;
  }
}

// What a reader must make of a compressed message, by zlib itself (RFC 7692
// 7.2.2: the payload with 00 00 ff ff appended, inflated once): the
// transcript entry "T:..."/"B:...", or ERR:1009 (over the limit as sent or
// once inflated) or ERR:1007 (it does not inflate, or its text is not
// UTF-8). A client may end the message with a final block (RFC 7692
// 7.2.3.4); zlib stops there, and so does the frame reader: what follows
// it is not read.
std::string zlib_verdict(const SentMessage& m, std::size_t max_message) {
  if (m.payload.size() > max_message) return "ERR:1009";
  const auto z = herald::test::zlib_inflate_once(m.payload, max_message);
  if (z.out.size() > max_message) return "ERR:1009";
  if (z.rc != Z_OK && z.rc != Z_STREAM_END && z.rc != Z_BUF_ERROR) return "ERR:1007";
  if (m.text && !simdjson::validate_utf8(z.out)) return "ERR:1007";
  return (m.text ? "T:" : "B:") + z.out;
}

// Where the readers part, ours did what zlib says of that message.
bool zlib_agrees_with_ours(const herald::test::Transcript& ours,
                           const herald::test::Transcript& beast, std::string_view bytes,
                           std::size_t max_message) {
  std::size_t i = 0, k = 0;
  for (; i < ours.size() && i < beast.size() && ours[i] == beast[i]; ++i) {
    if (ours[i].starts_with("T:") || ours[i].starts_with("B:")) ++k;
  }
  if (i >= ours.size()) return false;
  const auto m = sent_message(bytes, k);
  if (!m || !m->compressed) return false;
  return zlib_verdict(*m, max_message) == ours[i];
}

bool beast_stopped_first(const herald::test::Transcript& ours,
                         const herald::test::Transcript& beast) {
  std::size_t i = 0;
  while (i < ours.size() && i < beast.size() && ours[i] == beast[i]) ++i;
  if (i >= ours.size() || i + 1 != beast.size()) return false;
  const std::string& stop = beast[i];
  if (stop == "EOF") return ours[i] == "ERR:1009";
  if (stop != "ZLIB" && stop != "ERR:1009" && stop != "ERR:1007") return false;
  const bool read_message = ours[i].starts_with("T:") || ours[i].starts_with("B:");
  if (read_message) return true;
  std::size_t j = i;
  while (j < ours.size() && (ours[j].starts_with("PING:") || ours[j] == "PONG")) ++j;
  return j + 1 == ours.size() &&
         (ours[j].starts_with("ERR:") || ours[j].starts_with("CLOSE:") || ours[j] == "EOF");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_message = 16 + static_cast<std::size_t>(data[0]) * 16;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto ours = herald::test::frame_transcript_ours(bytes, max_message, true);
  for (const std::string& e : ours) {
    const bool text = e.starts_with("T:");
    if (!text && !e.starts_with("B:")) continue;
    if (e.size() - 2 > max_message ||
        (text && !simdjson::validate_utf8(std::string_view(e).substr(2)))) {
      std::fprintf(stderr, "a message over the limit or not UTF-8:\n%s\n",
                   herald::test::joined(ours).c_str());
      std::abort();
    }
  }
  const auto beast = herald::test::frame_transcript_beast(bytes, max_message, true);
  if (!herald::test::transcripts_agree(ours, beast) && !beast_stopped_first(ours, beast) &&
      !zlib_agrees_with_ours(ours, beast, bytes, max_message)) {
    std::fprintf(stderr, "frame reader (deflate) differs from Beast\nours:\n%s\nBeast:\n%s\n",
                 herald::test::joined(ours).c_str(), herald::test::joined(beast).c_str());
    std::abort();
  }
  return 0;
}
