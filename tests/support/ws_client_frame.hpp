// A WebSocket frame as a client sends it (RFC 6455 5.2 and 5.3: masked, the
// length in its shortest form unless a test asks otherwise), for tests that
// speak the protocol byte by byte: the frame reader's cases and a raw client
// against heraldd.
#pragma once

#include <cstdint>
#include <string>

namespace herald::test {

struct ClientFrame {
  std::uint8_t opcode = 1;
  std::string payload;
  bool fin = true;
  bool masked = true;
  std::uint8_t rsv = 0;  // the three RSV bits, 0..7
  int length_form = 0;   // 0 shortest, 126 or 127 forces that (maybe non-minimal) form
  std::uint32_t key = 0x37fa213d;
};

inline std::string encode(const ClientFrame& f) {
  std::string out;
  out += static_cast<char>((f.fin ? 0x80 : 0) | (f.rsv << 4) | (f.opcode & 0x0f));
  const std::uint64_t n = f.payload.size();
  const char mask_bit = f.masked ? static_cast<char>(0x80) : 0;
  int form = f.length_form;
  if (form == 0) form = n < 126 ? 0 : n <= 0xffff ? 126 : 127;
  if (form == 0) {
    out += static_cast<char>(mask_bit | static_cast<char>(n));
  } else if (form == 126) {
    out += static_cast<char>(mask_bit | 126);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(n & 0xff);
  } else {
    out += static_cast<char>(mask_bit | 127);
    for (int i = 7; i >= 0; --i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  }
  const char key[4] = {static_cast<char>(f.key >> 24), static_cast<char>(f.key >> 16),
                       static_cast<char>(f.key >> 8), static_cast<char>(f.key)};
  if (f.masked) out.append(key, 4);
  for (std::size_t i = 0; i < n; ++i) {
    out += f.masked ? static_cast<char>(f.payload[i] ^ key[i & 3]) : f.payload[i];
  }
  return out;
}

}  // namespace herald::test
