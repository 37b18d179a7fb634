#include "gateway/ws/frame_reader.hpp"

#include <simdjson.h>

#include <cstring>

#include "gateway/ws/deflate_codec.hpp"

namespace herald::gateway::ws {
namespace {

constexpr std::uint8_t kContinuation = 0x0;
constexpr std::uint8_t kText = 0x1;
constexpr std::uint8_t kBinary = 0x2;
constexpr std::uint8_t kClose = 0x8;
constexpr std::uint8_t kPing = 0x9;
constexpr std::uint8_t kPong = 0xA;

constexpr std::uint16_t kProtocolError = 1002;
constexpr std::uint16_t kBadPayload = 1007;
constexpr std::uint16_t kTooBig = 1009;
constexpr std::uint16_t kNoStatus = 1005;

// An inflated message's buffer is reused up to this size (a chat client's
// messages), released after a larger one.
constexpr std::size_t kKeptInflatedBytes = 4096;

// The parsed fixed part of a frame; `header` is 0 while incomplete.
struct Header {
  std::size_t header = 0;  // bytes before the payload, mask key included
  std::uint64_t length = 0;
  std::uint8_t opcode = 0;
  bool fin = false;
  bool masked = false;
  bool rsv1 = false;    // permessage-deflate's "compressed" bit (RFC 7692 §6)
  bool rsv23 = false;   // no extension we negotiate uses these
  bool minimal = true;  // the length used its shortest encoding
};

std::uint8_t byte_at(std::span<const char> in, std::size_t i) {
  // Safety: a char's object representation read as the octet it carries.
  return static_cast<std::uint8_t>(in[i]);
}

Header parse_header(std::span<const char> in) {
  Header h;
  if (in.size() < 2) return h;
  const std::uint8_t b0 = byte_at(in, 0);
  const std::uint8_t b1 = byte_at(in, 1);
  h.fin = (b0 & 0x80) != 0;
  h.rsv1 = (b0 & 0x40) != 0;
  h.rsv23 = (b0 & 0x30) != 0;
  h.opcode = b0 & 0x0f;
  h.masked = (b1 & 0x80) != 0;
  std::size_t need = 2;
  const std::uint8_t len7 = b1 & 0x7f;
  if (len7 == 126) {
    need = 4;
    if (in.size() < need) return h;
    h.length = (std::uint64_t{byte_at(in, 2)} << 8) | byte_at(in, 3);
    h.minimal = h.length >= 126;
  } else if (len7 == 127) {
    need = 10;
    if (in.size() < need) return h;
    for (std::size_t i = 2; i < 10; ++i) h.length = (h.length << 8) | byte_at(in, i);
    h.minimal = h.length > 0xffff;
  } else {
    h.length = len7;
  }
  if (h.masked) need += 4;
  if (in.size() < need) return h;
  h.header = need;
  return h;
}

// XORs `data` with the 4-byte key, eight bytes at a time.
void unmask(char* data, std::size_t n, const char* key) {
  std::uint64_t key8;
  char k[8];
  for (std::size_t i = 0; i < 8; ++i) k[i] = key[i & 3];
  std::memcpy(&key8, k, 8);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, data + i, 8);
    w ^= key8;
    std::memcpy(data + i, &w, 8);
  }
  for (; i < n; ++i) data[i] = static_cast<char>(data[i] ^ key[i & 3]);
}

bool is_control(std::uint8_t opcode) {
  return (opcode & 0x8) != 0;
}

}  // namespace

bool is_valid_close_code(std::uint16_t code) {
  if (code < 1000) return false;
  if (code >= 1004 && code <= 1006) return false;  // reserved, no status, abnormal
  if (code >= 1014 && code <= 2999) return false;  // reserved (1014, 1015 too)
  return true;
}

bool FrameReader::utf8_prefix_valid() {
  // Split message_ after its last complete code point: [validated_, cut) is
  // validated now; the incomplete tail (at most 3 bytes) is checked as a
  // prefix by completing it with the smallest continuation bytes.
  const std::string_view m = message_;
  std::size_t cut = m.size();
  for (std::size_t back = 1; back <= 3 && back <= m.size() - validated_; ++back) {
    const auto lead = static_cast<std::uint8_t>(m[m.size() - back]);
    if ((lead & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (need > back) cut = m.size() - back;
    break;
  }
  if (!simdjson::validate_utf8(m.substr(validated_, cut - validated_))) return false;
  validated_ = cut;
  if (cut == m.size()) return true;
  std::string tail(m.substr(cut));
  const auto lead = static_cast<std::uint8_t>(tail[0]);
  const std::size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  // The smallest continuation each position allows keeps the check exact:
  // after E0 it must be A0, after F0 90, after ED and F4 any of 80..9F/8F.
  while (tail.size() < need) {
    const bool second = tail.size() == 1;
    char next = '\x80';
    if (second && lead == 0xE0) next = '\xA0';
    if (second && lead == 0xF0) next = '\x90';
    tail += next;
  }
  return simdjson::validate_utf8(tail);
}

std::size_t FrameReader::frame_size(std::span<const char> input) {
  const Header h = parse_header(input);
  if (h.header == 0) return 0;
  return h.header + static_cast<std::size_t>(h.length);
}

ReadResult FrameReader::fail(std::uint16_t code, std::string_view what) {
  failed_ = true;
  message_.clear();
  message_compressed_ = false;
  ReadResult r;
  r.event = ReadEvent::error;
  r.close_code = code;
  r.payload = what;
  return r;
}

ReadResult FrameReader::inflated(std::uint8_t opcode, std::string_view compressed, ReadResult r) {
  switch (inflate_message(compressed, max_message_, inflated_)) {
    case InflateStatus::ok:
      break;
    case InflateStatus::too_big:
      return fail(kTooBig, "message over client.max_message_bytes once inflated");
    case InflateStatus::corrupt:
      return fail(kBadPayload, "a compressed message that does not inflate");
  }
  if (opcode == kText && !simdjson::validate_utf8(inflated_)) {
    return fail(kBadPayload, "a text message that is not UTF-8");
  }
  r.event = opcode == kText ? ReadEvent::text : ReadEvent::binary;
  r.payload = inflated_;
  return r;
}

ReadResult FrameReader::next(std::span<char> input) {
  if (failed_) return fail(kProtocolError, "the connection already failed");
  // The last inflated message is handed out no more: a large one's buffer
  // is not kept by every connection that once sent one.
  if (inflated_.capacity() > kKeptInflatedBytes) std::string().swap(inflated_);
  const Header h = parse_header(input);
  if (h.header == 0) return {};
  // The checks in Beast's order, so that a frame breaking several rules is
  // refused with the same code by both readers (the differential test).
  const std::uint8_t op = h.opcode;
  if (is_control(op)) {
    if (op != kClose && op != kPing && op != kPong) return fail(kProtocolError, "reserved opcode");
    if (!h.fin) return fail(kProtocolError, "a control frame may not be fragmented");
    if (h.length > 125) return fail(kProtocolError, "a control frame's payload is over 125 bytes");
    if (h.rsv1 || h.rsv23) {
      return fail(kProtocolError, inflate_ ? "RSV bits set on a control frame"
                                           : "RSV bits set, but no extension was negotiated");
    }
  } else {
    if (op != kContinuation && op != kText && op != kBinary) {
      return fail(kProtocolError, "reserved opcode");
    }
    if (op != kContinuation && message_opcode_ != 0) {
      return fail(kProtocolError, "a new message began before the fragmented one ended");
    }
    if (op == kContinuation && message_opcode_ == 0) {
      return fail(kProtocolError, "a continuation frame with no message to continue");
    }
    if (h.rsv23 || (h.rsv1 && !inflate_)) {
      return fail(kProtocolError, "RSV bits set, but no extension was negotiated");
    }
    if (h.rsv1 && op == kContinuation) {
      return fail(kProtocolError, "RSV1 set on a continuation frame (RFC 7692 6.1)");
    }
  }
  if (!h.masked) return fail(kProtocolError, "a client frame must be masked (RFC 6455 5.1)");
  if (!h.minimal) return fail(kProtocolError, "frame length not in its shortest form");
  if (!is_control(op)) {
    // Refused from the length field: the payload is never buffered. (A
    // 64-bit length with its top bit set is over any limit too.)
    const std::size_t assembled = message_opcode_ != 0 ? message_.size() : 0;
    if (h.length > max_message_ - assembled) {
      return fail(kTooBig, "message over client.max_message_bytes");
    }
  }
  const std::size_t total = h.header + static_cast<std::size_t>(h.length);
  if (input.size() < total) return {};

  char* payload = input.data() + h.header;
  const auto n = static_cast<std::size_t>(h.length);
  unmask(payload, n, payload - 4);
  const std::string_view body(payload, n);
  ReadResult r;
  r.consumed = total;
  switch (op) {
    case kPing:
      r.event = ReadEvent::ping;
      r.payload = body;
      return r;
    case kPong:
      r.event = ReadEvent::pong;
      return r;
    case kClose:
      if (n == 1) return fail(kProtocolError, "a close frame's payload of one byte");
      r.event = ReadEvent::close;
      r.close_code = kNoStatus;
      if (n >= 2) {
        // Safety: the octets of a big-endian 16-bit code.
        r.close_code = static_cast<std::uint16_t>((static_cast<std::uint8_t>(payload[0]) << 8) |
                                                  static_cast<std::uint8_t>(payload[1]));
        if (!is_valid_close_code(r.close_code)) {
          return fail(kProtocolError, "a close code that may not be sent (RFC 6455 7.4)");
        }
        r.payload = body.substr(2);
        if (!simdjson::validate_utf8(r.payload)) {
          return fail(kBadPayload, "a close reason that is not UTF-8");
        }
      }
      return r;
    default:
      break;
  }
  // A data frame.
  if (message_opcode_ == 0 && h.rsv1) {
    if (h.fin) return inflated(op, body, r);
    message_compressed_ = true;
  }
  if (message_opcode_ == 0 && h.fin) {
    // The common case, handed out in place.
    r.event = op == kText ? ReadEvent::text : ReadEvent::binary;
    if (op == kText && !simdjson::validate_utf8(body)) {
      return fail(kBadPayload, "a text message that is not UTF-8");
    }
    r.payload = body;
    return r;
  }
  if (message_opcode_ == 0) {
    message_opcode_ = op;
    message_.clear();
    validated_ = 0;
  }
  message_.append(body);
  if (!h.fin) {
    // Fail fast (RFC 6455 8.1 allows it; Beast does it): what arrived so
    // far must be valid UTF-8 or the start of it (compressed: only once
    // inflated, at the end).
    if (message_opcode_ == kText && !message_compressed_ && !utf8_prefix_valid()) {
      return fail(kBadPayload, "a text message that is not UTF-8");
    }
    r.event = ReadEvent::fragment;
    return r;
  }
  const std::uint8_t kind = message_opcode_;
  message_opcode_ = 0;
  if (message_compressed_) {
    message_compressed_ = false;
    return inflated(kind, message_, r);
  }
  if (kind == kText && !simdjson::validate_utf8(std::string_view(message_).substr(validated_))) {
    return fail(kBadPayload, "a text message that is not UTF-8");
  }
  r.event = kind == kText ? ReadEvent::text : ReadEvent::binary;
  r.payload = message_;
  return r;
}

}  // namespace herald::gateway::ws
