// The reading half of RFC 6455 for an established server-side connection:
// client frames in, whole messages and control frames out. Beast still
// performs the opening handshake (ws_connection.cpp); from the 101 on the
// connection is ours, because Beast's stream writes one message per composed
// operation and the fan-out needs a socket it can write many shared frames
// to in one non-blocking call (see outbound_queue.hpp). Owning the framing
// means owning its duties, which are all here and all tested against Beast
// reading the same bytes (tests/gateway/frame_reader_test.cpp):
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-------+-+-------------+-------------------------------+
//   |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
//   |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
//   |N|V|V|V|       |S|             |   (if payload len==126/127)   |
//   | |1|2|3|       |K|             |                               |
//   +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
//   |     Extended payload length continued, if payload len == 127  |
//   + - - - - - - - - - - - - - - - +-------------------------------+
//   |                               |Masking-key, if MASK set to 1  |
//   +-------------------------------+-------------------------------+
//   | Masking-key (continued)       |          Payload Data         |
//   +-------------------------------- - - - - - - - - - - - - - - - +
//
// Refused with 1002 (protocol error): RSV bits (but RSV1 on the first frame
// of a data message once permessage-deflate is negotiated), reserved opcodes, an unmasked client
// frame (§5.1), a length not in its shortest form (§5.2), a fragmented or over-125-byte control
// frame (§5.5), a continuation with no message open or a new message while one is open (§5.4), a
// close payload of one byte or with a code that may not be sent (§7.4). 1007: a text message or
// close reason that is not UTF-8 (§8.1). 1009: a message over the limit, refused from the length
// field, before its payload is read.
//
// permessage-deflate (RFC 7692, enable_inflate()): a message whose first
// frame has RSV1 is compressed; it is assembled whole (the limit applies to
// its compressed length too) and inflated by ws/deflate_codec.hpp with the
// limit on the inflated size, which stops a zip bomb at the limit: 1009.
// 1002: RSV1 on a continuation or control frame (§6, §6.1); 1007: bytes
// that do not inflate. UTF-8 is checked on the inflated text.
//
// Zero copy on the common path: a message in one frame is unmasked in place
// and handed out as a view into the caller's buffer. Only fragmented
// messages are assembled (in `message_`). UTF-8 is checked with simdjson's
// SIMD validator: a whole message at once, and a fragmented one as each
// fragment arrives (failing fast, as Beast does), up to its last complete
// code point plus a check that the incomplete rest can still become valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace herald::gateway::ws {

// What one call to FrameReader::next found.
enum class ReadEvent : std::uint8_t {
  need_more,  // no complete frame at the front of the input; read more
  text,       // a complete text message (payload)
  binary,     // a complete binary message (payload)
  ping,       // payload: answer with a pong carrying it
  pong,
  close,     // the peer's close frame: close_code (1005 when it had none), payload = reason
  fragment,  // a data fragment was taken into the message being assembled; call again
  error,     // the peer broke the protocol: close with close_code, payload = what
};

struct ReadResult {
  ReadEvent event = ReadEvent::need_more;
  std::size_t consumed = 0;  // bytes of the input this call used
  // text/binary/ping/close/error. Valid until the next call (it points into
  // the input or into the reader).
  std::string_view payload;
  std::uint16_t close_code = 0;
};

// RFC 6455 §7.4: codes a peer may put in a close frame (Beast's table, so
// both readers agree).
[[nodiscard]] bool is_valid_close_code(std::uint16_t code);

class FrameReader {
 public:
  explicit FrameReader(std::size_t max_message_bytes) : max_message_(max_message_bytes) {}

  // permessage-deflate was negotiated: RSV1 marks a compressed message.
  void enable_inflate() { inflate_ = true; }

  // Parses the frame at the front of `input`, unmasking its payload in
  // place. On need_more nothing was consumed; call again with more bytes
  // appended. After error the reader is spent (the connection must close).
  [[nodiscard]] ReadResult next(std::span<char> input);

  // Bytes that the frame at the front of `input` needs in total (header and
  // payload), or 0 if its header is incomplete: lets the caller size its
  // buffer once for a large frame.
  [[nodiscard]] static std::size_t frame_size(std::span<const char> input);

 private:
  ReadResult fail(std::uint16_t code, std::string_view what);
  // The compressed message's payload inflated into inflated_ and checked;
  // `r` carries what was consumed.
  ReadResult inflated(std::uint8_t opcode, std::string_view compressed, ReadResult r);
  // message_ (a text message so far) is valid UTF-8 or a prefix of it.
  bool utf8_prefix_valid();

  std::size_t max_message_;
  std::string message_;              // a fragmented message being assembled
  std::uint8_t message_opcode_ = 0;  // 0: no fragmented message open
  std::size_t validated_ = 0;        // message_[0, validated_) is valid UTF-8
  bool inflate_ = false;             // permessage-deflate was negotiated
  bool message_compressed_ = false;  // the open fragmented message is compressed
  std::string inflated_;             // the last compressed message, inflated
  bool failed_ = false;
};

}  // namespace herald::gateway::ws
