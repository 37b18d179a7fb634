// The compression of permessage-deflate (RFC 7692 §7.2) as the gateway uses
// it, with no context takeover in either direction (ws/deflate_offer.hpp
// negotiates that), over zlib's raw deflate (no zlib header, 15-bit window).
//
// Outbound, deflate_piece(): one piece of a message's payload (a frame's
// text, or the '\n' separator) compressed on its own, by a deflater reset
// for it, and ended with Z_SYNC_FLUSH. Such a piece refers to nothing
// before it and ends on a byte boundary with an empty stored block
// (00 00 ff ff), so pieces concatenate into one valid deflate stream: a
// WebSocket message of many shared frames is the concatenation of their
// compressed pieces, minus the last piece's trailing 00 00 ff ff (§7.2.1).
// That is what lets a publication be compressed once and its bytes be
// shared by every subscriber and batched into any message, as its plain
// text is. The price: no dictionary is shared between a message's frames,
// so each compresses only against itself (docs/benchmarks.md measures it).
//
// Inbound, inflate_message(): a client's compressed message, with
// 00 00 ff ff appended (§7.2.2), inflated into `out`, refusing as soon as
// the output would exceed `max_bytes` (a zip bomb never gets further than
// the limit).
//
// Both use one zlib stream per thread (thread_local), reset per call: the
// calls are synchronous and keep nothing between messages, so a
// connection holds no zlib state at all (10,000 idle connections would
// otherwise hold ~10,000 × 300 KiB of deflate state and 32 KiB windows).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace herald::gateway::ws {

// The octets RFC 7692 §7.2.1 removes from the end of a message's
// compressed payload, and §7.2.2 appends before inflating it.
inline constexpr std::string_view kDeflateTail{"\x00\x00\xff\xff", 4};

// `text` compressed on its own and sync-flushed: ends with kDeflateTail.
[[nodiscard]] std::string deflate_piece(std::string_view text);

enum class InflateStatus : unsigned char {
  ok,
  too_big,  // the inflated message would exceed max_bytes
  corrupt,  // not a valid deflate stream
};

// Inflates one message's compressed payload (without its tail) into `out`
// (replacing its contents).
[[nodiscard]] InflateStatus inflate_message(std::string_view compressed, std::size_t max_bytes,
                                            std::string& out);

}  // namespace herald::gateway::ws
