// Zone transfer (AXFR, RFC 5936), and IXFR answered with the full zone
// (RFC 1995 §4 allows it: a server without the history sends AXFR-style).
//
//   message 1:  header | question | SOA, records...
//   message 2:           records...          (no question: RFC 5936 §2.2)
//   ...
//   message n:           records..., SOA
//
// Every record of the zone goes out once between the two SOAs, in
// canonical order of owners: RRsets with their RRSIGs, NSEC and NSEC3
// chains, glue, DNSKEY. Each message is at most `max_message` octets (a
// record never spans two) and is compressed on its own. A zone signed
// online goes out as it is served without DO: its data and DNSKEY, no
// RRSIG or NSEC (they are made per answer; a secondary signs for itself).
#pragma once

#include <cstdint>
#include <vector>

#include "dns/message.hpp"
#include "dns/zone.hpp"

namespace herald::dns {

// Appends the transfer of `zone` answering `query` to `out`, as TCP frames
// (each message after its 2-octet length). Returns the number of messages.
std::size_t write_transfer(const Zone& zone, const Message& query, std::vector<std::uint8_t>& out,
                           std::size_t max_message = 16384);

}  // namespace herald::dns
