// A bounded cache of DNSSEC signatures, one table per shard
// (docs/plans/online-signing.md §4).
//
// Signing an RRset costs tens of µs (ECDSA P-256); answering from the cache
// costs a hash and a probe of one set. An RRset's signatures stay valid for
// days, so a shard signs each RRset it serves about once per validity period.
//
// Why per shard, not shared: one writer, no lock, as RRL and ShardStats. A
// shared table needs a lock or atomics on every DO answer (tens of ns,
// contended across shards) to save each shard one miss per RRset per
// validity period; with S shards the cold start signs S times, fine for
// S <= cores.
//
// Why a set-associative table, not a map: memory is fixed at construction
// (no allocation, no rehash pause on the query path, no growth under a
// flood), and a lookup probes at most 4 slots, whose keys and ticks lie in
// two cache lines. Within a set the least recently used slot (by find or
// insert) is evicted: an RRset asked for often stays, a one-off leaves first.
// A flood of distinct names can still sweep the table; the caller keeps
// NXNAME denials (one per random name) in a second, smaller instance so that
// flood cannot evict real names' signatures.
//
// Key: the zone's generation (a process-wide counter stamped per build of a
// zone, never reused, so a reload misses its predecessor's entries, which
// age out), SipHash-2-4 of the owner's lower-cased wire form under a secret
// drawn per instance (no one outside can aim collisions at a set or at a
// key), the type and the TTL (which separates the SOA from the negative
// SOA). Data determines the RRset: the same key means the same RDATA signed
// by the same keys. Two owners with equal 64-bit hashes would share
// signatures; with a secret key that is chance, about n²/2^65 for n owners.
//
// Invariants: the number of sets is a power of two (or zero: disabled);
// a slot is empty iff its tick is 0; ticks are unique and increase with
// each use, so the LRU slot of a set is the one with the smallest tick.
// Nothing allocates after the constructor. Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "dns/name.hpp"
#include "dns/signing/signer.hpp"
#include "dns/types.hpp"

namespace herald::dns::signing {

struct CachedSignatures {
  struct Sig {
    std::uint16_t key_tag = 0;
    std::array<std::uint8_t, kSignatureSize> bytes{};
  };
  std::uint32_t inception = 0;  // RRSIG times: seconds since 1970, modulo 2^32
  std::uint32_t expiration = 0;
  std::uint8_t count = 0;  // signatures in use, 1..2 (one per signing key)
  std::array<Sig, 2> sigs{};
};

class SignatureCache {
 public:
  struct Key {
    std::uint64_t generation = 0;
    std::uint64_t owner_hash = 0;  // owner_hash() below
    std::uint16_t type = 0;
    std::uint32_t ttl = 0;
    friend bool operator==(const Key&, const Key&) = default;
  };

  enum class Status : std::uint8_t { hit, miss, stale };
  struct Found {
    Status status = Status::miss;
    // The entry on a hit, null otherwise. Valid until the next insert.
    const CachedSignatures* value = nullptr;
  };

  // Read by the shard's statistics.
  struct Counters {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;  // absent keys; every find when disabled
    std::uint64_t stale = 0;   // present, but to be re-signed
    std::uint64_t evictions = 0;
    std::uint64_t inserts = 0;
  };

  static constexpr std::size_t kWays = 4;
  // Bounds the table (and keeps the set count's rounding defined).
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 32;

  // Room for at least `entries` entries: the set count is ceil(entries / 4)
  // rounded up to a power of two. 0 disables the cache (find misses, insert
  // does nothing, nothing is allocated). Draws the hash secret from
  // OpenSSL's generator. Throws std::invalid_argument over kMaxEntries,
  // std::runtime_error if OpenSSL has no randomness, std::bad_alloc.
  explicit SignatureCache(std::size_t entries);
  // The same with a given secret: for tests that want repeatable sets.
  SignatureCache(std::size_t entries, std::span<const std::uint8_t, 16> secret);

  // SipHash-2-4 of `owner`'s wire form, lower-cased, under this instance's
  // secret: names that differ only in case hash alike (RFC 4343).
  [[nodiscard]] std::uint64_t owner_hash(const Name& owner) const noexcept;
  [[nodiscard]] Key key(std::uint64_t generation, const Name& owner, RRType type,
                        std::uint32_t ttl) const noexcept {
    return Key{generation, owner_hash(owner), type.value, ttl};
  }

  // Looks `key` up at time `now` (seconds since 1970, modulo 2^32). A present
  // entry is stale, not a hit, when it expires in less than `refresh`
  // seconds or its inception is after `now`; see the .cpp for why. A hit
  // makes the entry its set's most recently used; a miss or a stale entry
  // changes no slot (the caller signs and inserts, overwriting it).
  [[nodiscard]] Found find(const Key& key, std::uint32_t now, std::uint32_t refresh) noexcept;

  // Stores `value` under `key` as its set's most recently used: into the
  // slot holding `key` if any, else an empty slot, else over the set's least
  // recently used entry (an eviction).
  void insert(const Key& key, const CachedSignatures& value) noexcept;

  // The set `key` maps to, 0..sets()-1 (sets() > 0). For tests and
  // diagnostics: keys of one set compete for its 4 slots.
  [[nodiscard]] std::size_t set_of(const Key& key) const noexcept;
  [[nodiscard]] std::size_t sets() const noexcept { return sets_.size(); }
  [[nodiscard]] std::size_t capacity() const noexcept { return sets_.size() * kWays; }
  // Memory held: the table and this object.
  [[nodiscard]] std::size_t bytes() const noexcept {
    return sets_.size() * sizeof(Set) + sizeof(*this);
  }
  [[nodiscard]] const Counters& counters() const noexcept { return counters_; }

 private:
  // Keys and ticks first, values after: the probe reads the first two cache
  // lines of a set (4 keys of 24 octets, 4 ticks of 8), and only a hit or an
  // insert touches a value's (144 octets) lines. 176 octets a slot: the
  // default 65536 entries take 11 MiB per shard.
  struct alignas(64) Set {
    std::array<Key, kWays> keys{};
    std::array<std::uint64_t, kWays> last_used{};  // 0: empty
    std::array<CachedSignatures, kWays> values{};
  };
  // The memory figure docs/dns.md and the dns.signature_cache_entries help
  // quote: 176 octets a slot.
  static_assert(sizeof(Set) == kWays * 176);

  std::array<std::uint8_t, 16> secret_{};
  std::vector<Set> sets_;
  std::uint64_t tick_ = 0;  // last tick handed out; 2^64 uses never wrap
  Counters counters_;
};

}  // namespace herald::dns::signing
