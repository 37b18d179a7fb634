#include "dns/signing/signature_cache.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "dns/detail/siphash.hpp"

namespace herald::dns::signing {
namespace {

std::size_t set_count(std::size_t entries) {
  if (entries > SignatureCache::kMaxEntries)
    throw std::invalid_argument("signature cache: too many entries");
  if (entries == 0) return 0;
  return std::bit_ceil((entries + SignatureCache::kWays - 1) / SignatureCache::kWays);
}

std::array<std::uint8_t, 16> random_secret() {
  std::array<std::uint8_t, 16> s{};
  // Safety: RAND_bytes takes an int length; 16 fits.
  if (RAND_bytes(s.data(), static_cast<int>(s.size())) != 1)
    throw std::runtime_error("signature cache: RAND_bytes failed");
  return s;
}

}  // namespace

SignatureCache::SignatureCache(std::size_t entries) : SignatureCache(entries, random_secret()) {}

SignatureCache::SignatureCache(std::size_t entries, std::span<const std::uint8_t, 16> secret)
    : sets_(set_count(entries)) {
  std::copy(secret.begin(), secret.end(), secret_.begin());
}

std::uint64_t SignatureCache::owner_hash(const Name& owner) const noexcept {
  // lowercased() copies into a Name's inline storage: no allocation.
  return detail::siphash24(secret_, owner.lowercased().wire());
}

std::size_t SignatureCache::set_of(const Key& key) const noexcept {
  // The owner hash alone would put every type of one owner (A, AAAA, MX,
  // NSEC, ...) in one set of 4, where they would evict one another; the
  // type, TTL and generation are mixed in. The owner hash is secret, so the
  // set stays unpredictable from outside whatever the other fields are.
  std::uint64_t h = key.owner_hash ^ key.generation * 0x9E3779B97F4A7C15ULL ^
                    (std::uint64_t{key.type} << 32 | key.ttl) * 0xD6E8FEB86659FD93ULL;
  // Multiplicative (Fibonacci) hashing: the upper half of the product
  // depends on every bit of h, the type's and TTL's included.
  // Safety: sets_.size() is a power of two of at most 2^30 (kMaxEntries /
  // kWays), so the mask keeps an index below it, within 32 bits.
  return static_cast<std::size_t>(((h * 0x9E3779B97F4A7C15ULL) >> 32) & (sets_.size() - 1));
}

SignatureCache::Found SignatureCache::find(const Key& key, std::uint32_t now,
                                           std::uint32_t refresh) noexcept {
  if (sets_.empty()) {
    ++counters_.misses;
    return {};
  }
  Set& s = sets_[set_of(key)];
  for (std::size_t i = 0; i < kWays; ++i) {
    if (s.last_used[i] == 0 || !(s.keys[i] == key)) continue;
    const CachedSignatures& v = s.values[i];
    // Times are compared in RFC 1982 serial arithmetic (as RFC 4034 §3.1.5
    // says for RRSIG times): the u32 clock wraps in 2106, and the signed
    // difference of two u32s orders times less than 2^31 s (68 years) apart.
    // Safety: the u32 difference, reinterpreted as two's complement (C++20
    // defines the conversion modulo 2^32).
    const auto remaining = static_cast<std::int32_t>(v.expiration - now);
    const auto since_inception = static_cast<std::int32_t>(now - v.inception);
    // Stale with less than `refresh` left, not only once expired: a resolver
    // caches an answer for at most expiration - now (RFC 4035 §5.3.3), so a
    // signature near its end cuts the TTL resolvers keep and brings them
    // back sooner. Refreshing `refresh` (>= the zone's largest TTL) ahead
    // keeps full TTLs. At exactly `refresh` left the entry still serves: a
    // resolver may keep it `refresh` seconds, the most it would anyway.
    // An inception after now means the clock went back (or an entry from a
    // future clock): validators would reject it (§5.3.1), so re-sign.
    if (std::int64_t{remaining} < std::int64_t{refresh} || since_inception < 0) {
      ++counters_.stale;
      return {Status::stale, nullptr};
    }
    s.last_used[i] = ++tick_;
    ++counters_.hits;
    return {Status::hit, &v};
  }
  ++counters_.misses;
  return {};
}

void SignatureCache::insert(const Key& key, const CachedSignatures& value) noexcept {
  if (sets_.empty()) return;
  Set& s = sets_[set_of(key)];
  // The slot holding `key` if any, else an empty one (tick 0, the smallest),
  // else the smallest tick: the least recently used.
  std::size_t at = kWays;
  std::size_t lru = 0;
  for (std::size_t i = 0; i < kWays; ++i) {
    if (s.last_used[i] != 0 && s.keys[i] == key) {
      at = i;
      break;
    }
    if (s.last_used[i] < s.last_used[lru]) lru = i;
  }
  if (at == kWays) {
    at = lru;
    if (s.last_used[at] != 0) ++counters_.evictions;
  }
  s.keys[at] = key;
  s.values[at] = value;
  s.last_used[at] = ++tick_;
  ++counters_.inserts;
}

}  // namespace herald::dns::signing
