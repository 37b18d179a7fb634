// The NSEC3 owner hash (RFC 5155 §5):
//
//   IH(salt, x, 0) = H(x || salt)
//   IH(salt, x, k) = H(IH(salt, x, k-1) || salt)      for k > 0
//   hash = IH(salt, owner name in canonical (lower-case) wire form, iterations)
//
// H is SHA-1 (algorithm 1, the only one defined), from OpenSSL: a hash is
// the one thing here we do not write by hand (docs/ARCHITECTURE.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "dns/name.hpp"

namespace herald::dns {

using Nsec3Hash = std::array<std::uint8_t, 20>;

// nullopt for an algorithm other than 1 (SHA-1).
std::optional<Nsec3Hash> nsec3_hash(const Name& name, std::uint8_t algorithm,
                                    std::uint16_t iterations, std::span<const std::uint8_t> salt);

}  // namespace herald::dns
