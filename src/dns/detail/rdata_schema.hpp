// The RDATA layout of every typed record, as a list of field kinds, after
// Knot's rdata descriptors. One table drives wire decoding (validation and
// name decompression), wire encoding (compression), and both directions of
// the presentation form, so a type is described once; what each kind means
// in each direction is one row of detail/rdata_fields.cpp, so a kind is too.
//
// Names come in three kinds (RFC 3597 §4): those a decoder must decompress
// and an encoder may compress (the RFC 1035 types), those a decoder must
// decompress but an encoder must not compress (RP, AFSDB, SRV, NAPTR, ...),
// and those never compressed (every type defined later).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dns/types.hpp"

namespace herald::dns::detail {

enum class Field : std::uint8_t {
  u8,
  u16,
  u32,
  u48,        // unsigned integers, decimal in text
  type,       // u16 shown as a type mnemonic (RRSIG type covered)
  cert_type,  // u16, RFC 4398 mnemonics (PKIX, PGP, ...) accepted in text
  name_c,     // name: decompress, may compress
  name_d,     // name: decompress, never compress
  name,       // name: never compressed either way
  a,
  aaaa,       // addresses
  cstr,       // one <character-string>
  cstr_rest,  // one or more <character-string>s to the end (TXT)
  text_rest,  // octets to the end as one quoted string (CAA value, URI)
  tag,        // u8 length + 1..15 letters/digits, bare in text (CAA tag)
  b64_rest,   // octets to the end, base64 (may span text tokens)
  hex_rest,   // octets to the end, hex (may span text tokens)
  hex_u8,     // u8 length + octets, hex; "-" for none (NSEC3 salt)
  b32_u8,     // u8 length + octets, base32hex (NSEC3 next hash)
  bitmap,     // RFC 4034 §4.1.2 type bitmap to the end
  time,       // u32 as YYYYMMDDHHmmSS (RRSIG)
  b64_u16,    // u16 length + octets, base64 (TSIG MAC and other data)
  eui48,
  eui64,        // RFC 7043: xx-xx-xx-xx-xx-xx
  svc_params,   // RFC 9460 SvcParams to the end
  ipseckey_gw,  // RFC 4025 gateway, form chosen by the gateway type octet
  loc,          // RFC 1876 LOC version 0: the whole 16-octet RDATA
  // A new kind goes above this line, and gets its row in rdata_fields.cpp.
};

// One row of detail/rdata_fields.cpp per enumerator.
inline constexpr std::size_t kFieldCount = static_cast<std::size_t>(Field::loc) + 1;

struct Descriptor {
  std::uint16_t type;
  std::string_view mnemonic;
  std::uint8_t count;  // fields used; 0: no typed layout (RFC 3597 opaque)
  std::array<Field, 10> fields;
};

// The descriptor of `t`, or nullptr for types known only by number.
const Descriptor* find_descriptor(RRType t) noexcept;
// Descriptor of a mnemonic (case-insensitive), or nullptr.
const Descriptor* find_descriptor(std::string_view mnemonic) noexcept;

}  // namespace herald::dns::detail
