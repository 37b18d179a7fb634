// Query counters of one shard. Each shard writes only its own (relaxed
// atomics on its own cache lines: no sharing, no lock); a metrics scrape sums
// them over the shards (Server::register_metrics).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "dns/types.hpp"

namespace herald::dns {

// The query types counted by name; every other type counts as "other".
inline constexpr std::array<RRType, 14> kCountedTypes = {
    type::A,    type::NS,  type::CNAME, type::SOA,    type::PTR,   type::MX,  type::TXT,
    type::AAAA, type::SRV, type::DS,    type::DNSKEY, type::HTTPS, type::CAA, type::ANY};
inline constexpr std::size_t kTypeSlots = kCountedTypes.size() + 1;

inline constexpr std::array<std::uint16_t, 8> kCountedRcodes = {0, 1, 2, 3, 4, 5, 16, 23};
inline constexpr std::array<std::string_view, 8> kRcodeNames = {
    "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "BADVERS", "BADCOOKIE"};
inline constexpr std::size_t kRcodeSlots = kCountedRcodes.size() + 1;

// Online signing, one counter each (signing::SigningCounts summed).
enum class SigningStat : std::uint8_t { hits, misses, stale, evictions, signatures, failures };
inline constexpr std::size_t kSigningStats = 6;

struct alignas(64) ShardStats {
  std::array<std::atomic<std::uint64_t>, kTypeSlots> by_type{};
  std::array<std::atomic<std::uint64_t>, kRcodeSlots> by_rcode{};
  std::atomic<std::uint64_t> dropped{0};      // malformed beyond answering, or unsent
  std::atomic<std::uint64_t> truncated{0};    // TC set over UDP
  std::atomic<std::uint64_t> tcp_refused{0};  // connections over max_tcp_connections
  std::atomic<std::uint64_t> tcp_spent{0};    // closed at tcp_max_queries or tcp_lifetime
  // Queries with a COOKIE option, by CookieState (client_only, valid, invalid).
  std::array<std::atomic<std::uint64_t>, 3> cookies{};
  std::atomic<std::uint64_t> rrl_dropped{0};  // over the rate limit: not sent
  std::atomic<std::uint64_t> rrl_slipped{0};  // over the rate limit: sent truncated
  std::array<std::atomic<std::uint64_t>, kSigningStats> signing{};  // by SigningStat

  static std::size_t type_slot(RRType t) noexcept {
    for (std::size_t i = 0; i < kCountedTypes.size(); ++i) {
      if (kCountedTypes[i] == t) return i;
    }
    return kCountedTypes.size();
  }
  static std::size_t rcode_slot(std::uint16_t rc) noexcept {
    for (std::size_t i = 0; i < kCountedRcodes.size(); ++i) {
      if (kCountedRcodes[i] == rc) return i;
    }
    return kCountedRcodes.size();
  }
  static void bump(std::atomic<std::uint64_t>& c) noexcept { add(c, 1); }
  static void add(std::atomic<std::uint64_t>& c, std::uint64_t n) noexcept {
    // Only this shard's thread writes: a load and a store, no locked add.
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void add(SigningStat s, std::uint64_t n) noexcept {
    if (n != 0) add(signing[static_cast<std::size_t>(s)], n);
  }
};

}  // namespace herald::dns
