// Random ids and seeds: the one place a process draws randomness that is
// not key material (DNSSEC and token keys come from OpenSSL). Two kinds,
// kept apart because they cost differently:
//  - entropy from the OS (std::random_device reads getrandom): a system
//    call a draw, for seeds and per-process secrets made once at start;
//  - ids (a client per connect, a node or a dictionary writer per
//    process): a per-thread generator seeded once from the OS, so a
//    connect storm costs no system call per id. Ids are unlikely to repeat,
//    not secret: nothing trusts them for access.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace herald::random {

// 64 bits from the OS's entropy source.
[[nodiscard]] std::uint64_t entropy64();

// Fills `out` from the OS's entropy source (a cookie secret, a seed).
void fill_entropy(std::span<std::uint8_t> out);

// `digits` random lowercase hex digits (at most 16: one 64-bit draw of the
// calling thread's generator).
[[nodiscard]] std::string hex_id(std::size_t digits = 16);

}  // namespace herald::random
