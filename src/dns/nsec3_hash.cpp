#include "dns/nsec3_hash.hpp"

#include <openssl/sha.h>

#include <cstring>

namespace herald::dns {

std::optional<Nsec3Hash> nsec3_hash(const Name& name, std::uint8_t algorithm,
                                    std::uint16_t iterations, std::span<const std::uint8_t> salt) {
  if (algorithm != 1) return std::nullopt;
  // One buffer big enough for the name (<= 255) or a digest, then the salt
  // (<= 255): every round hashes it in place, no allocation.
  std::array<std::uint8_t, 255 + 255> buf;
  Name lower = name.lowercased();
  auto wire = lower.wire();
  std::memcpy(buf.data(), wire.data(), wire.size());
  // An empty salt may have no storage at all (data() null): memcpy from
  // null is undefined even for zero octets, so copy only a real salt.
  if (!salt.empty()) std::memcpy(buf.data() + wire.size(), salt.data(), salt.size());
  Nsec3Hash out;
  SHA1(buf.data(), wire.size() + salt.size(), out.data());
  for (std::uint16_t k = 0; k < iterations; ++k) {
    std::memcpy(buf.data(), out.data(), out.size());
    if (!salt.empty()) std::memcpy(buf.data() + out.size(), salt.data(), salt.size());
    SHA1(buf.data(), out.size() + salt.size(), out.data());
  }
  return out;
}

}  // namespace herald::dns
