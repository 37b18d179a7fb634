// LOC RDATA (RFC 1876), version 0:
//
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//   |        VERSION        |         SIZE          |
//   |       HORIZ PRE       |       VERT PRE        |
//   |                   LATITUDE                    |  (32 bits)
//   |                   LONGITUDE                   |  (32 bits)
//   |                   ALTITUDE                    |  (32 bits)
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//
// Latitude and longitude are thousandths of an arc second offset by 2^31;
// altitude is centimetres above 100,000 m below the WGS 84 spheroid; the
// three sizes are centimetres as mantissa * 10^exponent (4 bits each).
// Text: d [m [s.sss]] N|S d [m [s.sss]] E|W alt[m] [siz[m] [hp[m] [vp[m]]]]
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dns/error.hpp"
#include "dns/rdata.hpp"

namespace herald::dns::detail {

// Where the first octet of `rdata` that no valid LOC can hold is, or -1:
// version 0 is the only layout (RFC 1876 §2), 16 octets; each size is a
// mantissa and an exponent of 0..9, the mantissa non-zero unless the whole
// octet is (0e7 cm is 0 cm, whose one form is 0x00); latitude is within 90°
// of the equator and longitude within 180° of the prime meridian. These are
// BIND's checks on the wire: a LOC beyond them has no text form that reads
// back, so it is refused when read rather than served as unprintable.
long loc_wire_check(std::span<const std::uint8_t> rdata);

// `rdata` is 16 octets that pass loc_wire_check.
void loc_to_text(std::span<const std::uint8_t> rdata, std::string& out);
Error loc_from_text(std::span<const TextToken> tokens, std::size_t at,
                    std::vector<std::uint8_t>& out);

}  // namespace herald::dns::detail
