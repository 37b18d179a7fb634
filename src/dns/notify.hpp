// NOTIFY (RFC 1996): the message a primary sends its secondaries when a zone
// changed, so they transfer it now instead of at the SOA refresh interval.
//
//   header   opcode NOTIFY (4), AA set, ID chosen by the sender
//   question <zone> SOA IN
//   answer   the zone's SOA (RFC 1996 §3.7: a hint of the new serial)
#pragma once

#include <cstdint>
#include <vector>

#include "dns/zone.hpp"

namespace herald::dns {

std::vector<std::uint8_t> notify_message(const Zone& zone, std::uint16_t id);

// The SOA serial of a zone (RFC 1982 arithmetic is the reader's business).
std::uint32_t soa_serial(const Zone& zone);

}  // namespace herald::dns
