// Binary-to-text codecs of the presentation format: base64 (RFC 4648 §4, for
// keys and signatures), base32hex (§7, NSEC3 hashes), hex, and the RRSIG
// timestamp YYYYMMDDHHmmSS (RFC 4034 §3.2). Decoders append to `out` and
// return false on any character outside the alphabet or bad padding.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace herald::dns::detail {

void base64_encode(std::span<const std::uint8_t> in, std::string& out);
bool base64_decode(std::string_view in, std::vector<std::uint8_t>& out);
// Lower-case digits, no padding (as NSEC3 presentation form has it).
void base32hex_encode(std::span<const std::uint8_t> in, std::string& out);
bool base32hex_decode(std::string_view in, std::vector<std::uint8_t>& out);
void hex_encode(std::span<const std::uint8_t> in, std::string& out, bool upper = false);
bool hex_decode(std::string_view in, std::vector<std::uint8_t>& out);

// An unsigned decimal of at most `max` (at most 2^48 - 1). With `units`, the
// BIND TTL units are accepted too ("1w2d3h4m5s", case-insensitive; a bare
// number after a unit, as in "1h30", is refused), as zone files use them in
// TTLs and SOA timers. Never overflows: every step is checked against `max`.
bool decimal_decode(std::string_view in, std::uint64_t max, bool units, std::uint64_t& out);

// Seconds since 1970 modulo 2^32 <-> YYYYMMDDHHmmSS (UTC). The text form names
// the instant in 1970..2106 for the serial number value.
void time_encode(std::uint32_t t, std::string& out);
bool time_decode(std::string_view in, std::uint32_t& out);

// Addresses: dotted quad; RFC 5952 canonical IPv6 (lower case, longest run
// of two or more zero groups as "::"), with inet_pton's input grammar.
void append_ipv4(const std::uint8_t* p, std::string& out);
void append_ipv6(const std::uint8_t* p, std::string& out);
bool parse_ipv4(std::string_view s, std::uint8_t* out);
bool parse_ipv6(std::string_view s, std::uint8_t* out);
// Resolves \X and \DDD escapes of a presentation token (RFC 1035 §5.1).
bool unescape(std::string_view s, std::vector<std::uint8_t>& out);

}  // namespace herald::dns::detail
