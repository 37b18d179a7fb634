// Strict message decoding. Never reads outside the input; on refusal says
// why (Errc), where (offset), and what a server should do (disposition()).
#pragma once

#include <cstdint>
#include <span>

#include "dns/error.hpp"
#include "dns/message.hpp"

namespace herald::dns {

// Any message (query or response). Refuses: short header, truncated fields,
// counts claiming more records than present, octets after the last record,
// bad names (error.hpp), RDATA that does not parse as its type, more than
// one OPT, OPT outside the additional section or not owned by the root, and
// malformed EDNS options.
Result<Message> decode(std::span<const std::uint8_t> wire);

// A query arriving at a server: decode() plus QR and TC clear, an opcode we
// implement (QUERY, NOTIFY; else NOTIMP), QDCOUNT 1 for QUERY and NOTIFY,
// and only the records such a query carries: in a QUERY none in answer, an
// SOA in authority only for IXFR (RFC 1995 §3); in a NOTIFY an SOA in answer
// (RFC 1996 §3.7); in either, OPT and TSIG in additional. Any other record
// is refused (records_in_query, FORMERR) on its type, before its RDATA is
// read. QR is checked before anything past the header is read, so responses
// are dropped cheaply.
Result<Message> decode_query(std::span<const std::uint8_t> wire);

}  // namespace herald::dns
