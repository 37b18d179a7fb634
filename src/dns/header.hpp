// The message header (RFC 1035 §4.1.1, flags from RFC 2535 §6.1 and 4035):
//
//                                   1  1  1  1  1  1
//     0  1  2  3  4  5  6  7  8  9  0  1  2  3  4  5
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//   |                      ID                       |
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//   |QR|   Opcode  |AA|TC|RD|RA| Z|AD|CD|   RCODE   |
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//   |                    QDCOUNT                    |
//   |                    ANCOUNT                    |
//   |                    NSCOUNT                    |
//   |                    ARCOUNT                    |
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
#pragma once

#include <cstdint>

#include "dns/buffer.hpp"
#include "dns/types.hpp"

namespace herald::dns {

inline constexpr std::size_t kHeaderSize = 12;

struct Header {
  std::uint16_t id = 0;
  bool qr = false;
  std::uint8_t opcode = 0;  // 4 bits; kept raw so unknown opcodes round-trip
  bool aa = false, tc = false, rd = false, ra = false, z = false, ad = false, cd = false;
  std::uint8_t rcode = 0;  // low 4 bits; the high 8 live in the OPT record
  std::uint16_t qdcount = 0, ancount = 0, nscount = 0, arcount = 0;

  friend bool operator==(const Header&, const Header&) = default;

  std::uint16_t flags() const noexcept;
  void set_flags(std::uint16_t f) noexcept;
  // Requires r.has(kHeaderSize).
  static Header read(Reader& r) noexcept;
  void write(Writer& w) const;
};

}  // namespace herald::dns
