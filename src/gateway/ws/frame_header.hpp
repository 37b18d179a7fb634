// The header of a frame the server sends (RFC 6455 §5.2, drawn in
// frame_reader.hpp): FIN set, RSV1 only on a compressed message
// (permessage-deflate, RFC 7692 §6), RSV2 and RSV3 never, never masked (§5.1: a server
// must not mask), the length in its shortest form. Two to ten bytes, built
// on the stack, so a write can put one in front of shared payload bytes
// without copying them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace herald::gateway::ws {

enum class Opcode : std::uint8_t { text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA };

struct FrameHeader {
  std::array<char, 10> bytes{};
  std::uint8_t size = 0;

  [[nodiscard]] std::string_view view() const { return {bytes.data(), size}; }
};

[[nodiscard]] inline FrameHeader server_frame_header(Opcode opcode, std::uint64_t payload_size,
                                                     bool compressed = false) {
  FrameHeader h;
  // Safety: each value stored is one octet of the header (0..255).
  const auto octet = [](std::uint64_t v) { return static_cast<char>(v & 0xff); };
  h.bytes[0] = octet(0x80 | (compressed ? 0x40 : 0) | static_cast<std::uint8_t>(opcode));
  if (payload_size < 126) {
    h.bytes[1] = octet(payload_size);
    h.size = 2;
  } else if (payload_size <= 0xffff) {
    h.bytes[1] = octet(126);
    h.bytes[2] = octet(payload_size >> 8);
    h.bytes[3] = octet(payload_size);
    h.size = 4;
  } else {
    h.bytes[1] = octet(127);
    for (int i = 0; i < 8; ++i) h.bytes[2 + i] = octet(payload_size >> (8 * (7 - i)));
    h.size = 10;
  }
  return h;
}

// A whole control frame (close, ping, pong): header and payload, which
// RFC 6455 §5.5 bounds at 125 bytes (longer payloads are cut there).
[[nodiscard]] inline std::string control_frame(Opcode opcode, std::string_view payload) {
  payload = payload.substr(0, 125);
  const FrameHeader h = server_frame_header(opcode, payload.size());
  std::string out(h.view());
  out += payload;
  return out;
}

// A close frame's payload: the code in network order, then the reason (cut
// so the payload fits a control frame).
[[nodiscard]] inline std::string close_frame(std::uint16_t code, std::string_view reason) {
  std::string payload;
  // Safety: the two octets of a 16-bit code, big-endian.
  payload += static_cast<char>(code >> 8);
  payload += static_cast<char>(code & 0xff);
  payload += reason.substr(0, 123);
  return control_frame(Opcode::close, payload);
}

}  // namespace herald::gateway::ws
