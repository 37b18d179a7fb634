// The signature cache checked against a model twin (an unordered_map of
// what was inserted, and per set the keys in order of last use), then its
// edges one at a time: staleness at the refresh boundary and across the
// u32 clock's wrap, generations, the disabled table, LRU order within a set,
// the owner hash, and allocations (herald_alloc_counter sees every operator
// new of this binary).
#include "dns/signing/signature_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "../test_util.hpp"
#include "support/alloc_counter.hpp"

namespace herald::dns::signing {
namespace {

using Key = SignatureCache::Key;
using Status = SignatureCache::Status;
using test::name;

constexpr std::uint32_t kNow = 1796083200;  // 2026-12-01
constexpr std::uint32_t kDay = 86400;
constexpr std::uint32_t kRefresh = kDay;
constexpr std::array<std::uint8_t, 16> kSecret = {1, 2,  3,  4,  5,  6,  7,  8,
                                                  9, 10, 11, 12, 13, 14, 15, 16};

struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept {
    return std::hash<std::uint64_t>{}(k.owner_hash ^ k.generation * 31 ^ k.type * 7919ULL ^
                                      std::uint64_t{k.ttl} << 20);
  }
};

// Valid from an hour before `now` to 7 days after; `mark` makes values distinct.
CachedSignatures value(std::uint32_t mark, std::uint32_t now = kNow) {
  CachedSignatures v;
  v.inception = now - 3600;
  v.expiration = now + 7 * kDay;
  v.count = 1 + mark % 2;
  for (std::size_t i = 0; i < v.count; ++i) {
    // Safety: key tags are 16 bits; the mark's low bits suffice to tell values apart.
    v.sigs[i].key_tag = static_cast<std::uint16_t>(mark + i);
    std::memcpy(v.sigs[i].bytes.data(), &mark, sizeof mark);
  }
  return v;
}

bool same(const CachedSignatures& a, const CachedSignatures& b) {
  if (a.inception != b.inception || a.expiration != b.expiration || a.count != b.count)
    return false;
  for (std::size_t i = 0; i < a.count; ++i)
    if (a.sigs[i].key_tag != b.sigs[i].key_tag || a.sigs[i].bytes != b.sigs[i].bytes) return false;
  return true;
}

// `n` distinct keys that map to one set of `cache`.
std::vector<Key> keys_in_one_set(const SignatureCache& cache, std::size_t n) {
  std::vector<Key> out;
  const Key first{1, 1000, type::A.value, 300};
  const std::size_t set = cache.set_of(first);
  out.push_back(first);
  for (std::uint64_t h = 1001; out.size() < n; ++h) {
    Key k{1, h, type::A.value, 300};
    if (cache.set_of(k) == set) out.push_back(k);
  }
  return out;
}

// The twin: the model holds the last value inserted under every key, and per
// set the keys in order of last use (an insert, or a find that hit), most
// recent first. A set of 4 ways with LRU eviction holds exactly the 4 most
// recently used distinct keys of its set, so the cache must hit a key iff
// it is among them, with the model's value; in a run of inserts alone, that
// is "a key hits until 4 newer distinct keys of its set were inserted".
TEST(SignatureCache, HitsExactlyTheFourMostRecentlyUsedKeysOfEachSetWithTheModelsValue) {
  SignatureCache cache(64, kSecret);
  ASSERT_EQ(cache.capacity(), 64u);
  std::mt19937_64 rng(20261201);
  std::vector<std::uint64_t> owners(40);
  for (auto& o : owners) o = rng();
  const std::array<std::uint16_t, 3> types = {type::A.value, type::AAAA.value, type::NSEC.value};
  const std::array<std::uint32_t, 2> ttls = {300, 3600};
  auto random_key = [&] {  // 2 * 40 * 3 * 2 = 480 keys for 64 slots
    return Key{1 + rng() % 2, owners[rng() % owners.size()], types[rng() % types.size()],
               ttls[rng() % ttls.size()]};
  };
  std::unordered_map<Key, CachedSignatures, KeyHash> model;
  std::vector<std::vector<Key>> recent(cache.sets());  // most recent first, at most 4
  auto use = [&](const Key& k) {
    auto& r = recent[cache.set_of(k)];
    auto it = std::find(r.begin(), r.end(), k);
    if (it != r.end()) r.erase(it);
    r.insert(r.begin(), k);
    if (r.size() > SignatureCache::kWays) r.pop_back();
  };
  std::uint64_t finds = 0, inserts = 0, hits = 0;
  for (std::uint32_t op = 0; op < 100000; ++op) {
    const Key k = random_key();
    if (rng() % 2 == 0) {
      const CachedSignatures v = value(op);
      cache.insert(k, v);
      model[k] = v;
      use(k);
      ++inserts;
      continue;
    }
    ++finds;
    const auto& r = recent[cache.set_of(k)];
    const bool expect_hit = std::find(r.begin(), r.end(), k) != r.end();
    const auto found = cache.find(k, kNow, kRefresh);
    ASSERT_EQ(found.status == Status::hit, expect_hit) << "op " << op;
    if (found.status != Status::hit) {
      EXPECT_EQ(found.value, nullptr);
      continue;
    }
    ++hits;
    ASSERT_NE(found.value, nullptr);
    auto m = model.find(k);
    ASSERT_NE(m, model.end()) << "op " << op << ": a hit on a key never inserted";
    ASSERT_TRUE(same(*found.value, m->second)) << "op " << op;
    use(k);
  }
  const auto& c = cache.counters();
  EXPECT_EQ(c.hits, hits);
  EXPECT_EQ(c.misses, finds - hits);
  EXPECT_EQ(c.stale, 0u);
  EXPECT_EQ(c.inserts, inserts);
  EXPECT_GT(c.evictions, 0u);   // the key space is larger than the table
  EXPECT_GT(hits, finds / 20);  // and the test exercised hits, not only misses
}

TEST(SignatureCache, WithinASetTheLeastRecentlyUsedByFindOrInsertIsEvicted) {
  SignatureCache cache(64, kSecret);
  const std::vector<Key> k = keys_in_one_set(cache, 6);
  for (std::uint32_t i = 0; i < 4; ++i) cache.insert(k[i], value(i));
  EXPECT_EQ(cache.counters().evictions, 0u);
  // Use order now k0 k1 k2 k3; a find of k0 makes k1 the least recent.
  EXPECT_EQ(cache.find(k[0], kNow, kRefresh).status, Status::hit);
  cache.insert(k[4], value(4));
  EXPECT_EQ(cache.counters().evictions, 1u);
  EXPECT_EQ(cache.find(k[1], kNow, kRefresh).status, Status::miss);
  // Order k2 k3 k0 k4 (the miss changed nothing); re-inserting k2 makes k3
  // the least recent, without an eviction.
  cache.insert(k[2], value(12));
  EXPECT_EQ(cache.counters().evictions, 1u);
  cache.insert(k[5], value(5));
  EXPECT_EQ(cache.counters().evictions, 2u);
  EXPECT_EQ(cache.find(k[3], kNow, kRefresh).status, Status::miss);
  for (std::size_t i : {0, 2, 4, 5}) {
    auto f = cache.find(k[i], kNow, kRefresh);
    ASSERT_EQ(f.status, Status::hit) << i;
    EXPECT_TRUE(same(*f.value, value(i == 2 ? 12 : static_cast<std::uint32_t>(i)))) << i;
  }
}

TEST(SignatureCache, InsertingAPresentKeyReplacesItsValueWithoutEviction) {
  SignatureCache cache(4, kSecret);
  const Key k{1, 42, type::A.value, 300};
  cache.insert(k, value(1));
  cache.insert(k, value(2));
  auto f = cache.find(k, kNow, kRefresh);
  ASSERT_EQ(f.status, Status::hit);
  EXPECT_TRUE(same(*f.value, value(2)));
  EXPECT_EQ(cache.counters().inserts, 2u);
  EXPECT_EQ(cache.counters().evictions, 0u);
}

// Decided: with exactly `refresh` seconds left the entry still serves (a
// resolver may then keep it `refresh` seconds, at least the zone's largest
// TTL); one second less and it is stale.
TEST(SignatureCache, AnEntryIsFreshWithExactlyRefreshLeftAndStaleWithLess) {
  SignatureCache cache(16, kSecret);
  const Key k{1, 42, type::A.value, 300};
  const CachedSignatures v = value(1);
  cache.insert(k, v);
  const std::uint32_t boundary = v.expiration - kRefresh;
  EXPECT_EQ(cache.find(k, boundary, kRefresh).status, Status::hit);
  auto f = cache.find(k, boundary + 1, kRefresh);
  EXPECT_EQ(f.status, Status::stale);
  EXPECT_EQ(f.value, nullptr);
  EXPECT_EQ(cache.find(k, v.expiration, kRefresh).status, Status::stale);
  EXPECT_EQ(cache.find(k, v.expiration + 10 * kDay, kRefresh).status, Status::stale);
  EXPECT_EQ(cache.counters().stale, 3u);
  EXPECT_EQ(cache.counters().hits, 1u);
  // The caller re-signs and overwrites: the fresh value hits.
  cache.insert(k, value(2, boundary + 1));
  f = cache.find(k, boundary + 1, kRefresh);
  ASSERT_EQ(f.status, Status::hit);
  EXPECT_TRUE(same(*f.value, value(2, boundary + 1)));
}

TEST(SignatureCache, AnEntryWhoseInceptionIsAfterNowIsStale) {
  SignatureCache cache(16, kSecret);
  const Key k{1, 42, type::A.value, 300};
  const CachedSignatures v = value(1);
  cache.insert(k, v);
  EXPECT_EQ(cache.find(k, v.inception, kRefresh).status, Status::hit);
  EXPECT_EQ(cache.find(k, v.inception - 1, kRefresh).status, Status::stale);  // clock went back
}

TEST(SignatureCache, StalenessUsesSerialArithmeticAcrossTheWrapOfTheU32Clock) {
  SignatureCache cache(16, kSecret);
  const Key k{1, 42, type::A.value, 300};
  const std::uint32_t now = 0xFFFFFF00;  // 2106-02-07, 256 s before the wrap
  const CachedSignatures v = value(1, now);
  ASSERT_LT(v.expiration, v.inception);  // the expiration wrapped
  cache.insert(k, v);
  EXPECT_EQ(cache.find(k, now, kRefresh).status, Status::hit);
  EXPECT_EQ(cache.find(k, 1000, kRefresh).status, Status::hit);  // after the wrap
  EXPECT_EQ(cache.find(k, v.expiration - kRefresh, kRefresh).status, Status::hit);
  EXPECT_EQ(cache.find(k, v.expiration - kRefresh + 1, kRefresh).status, Status::stale);
  EXPECT_EQ(cache.find(k, v.inception - 1, kRefresh).status, Status::stale);
}

TEST(SignatureCache, TheSameOwnerTypeAndTtlInANewGenerationMisses) {
  SignatureCache cache(1024, kSecret);
  const Name owner = name("www.example.");
  cache.insert(cache.key(7, owner, type::A, 300), value(1));
  EXPECT_EQ(cache.find(cache.key(7, owner, type::A, 300), kNow, kRefresh).status, Status::hit);
  EXPECT_EQ(cache.find(cache.key(8, owner, type::A, 300), kNow, kRefresh).status, Status::miss);
  // Nor does another type or TTL of the same owner hit.
  EXPECT_EQ(cache.find(cache.key(7, owner, type::AAAA, 300), kNow, kRefresh).status, Status::miss);
  EXPECT_EQ(cache.find(cache.key(7, owner, type::A, 3600), kNow, kRefresh).status, Status::miss);
}

TEST(SignatureCache, ADisabledCacheNeverHitsAndNeverAllocates) {
  const herald::test::AllocationScope scope;
  SignatureCache cache(0, kSecret);
  EXPECT_EQ(cache.capacity(), 0u);
  EXPECT_EQ(cache.sets(), 0u);
  const Key k{1, 42, type::A.value, 300};
  for (std::uint32_t i = 0; i < 100; ++i) {
    cache.insert(k, value(i));
    auto f = cache.find(k, kNow, kRefresh);
    EXPECT_EQ(f.status, Status::miss);
    EXPECT_EQ(f.value, nullptr);
  }
  EXPECT_EQ(cache.counters().misses, 100u);
  EXPECT_EQ(cache.counters().inserts, 0u);
  EXPECT_EQ(scope.count(), 0u);
  SignatureCache drawn(0);  // the constructor that draws its secret
  EXPECT_EQ(drawn.find(k, kNow, kRefresh).status, Status::miss);
  EXPECT_EQ(scope.count(), 0u);
}

TEST(SignatureCache, FindAndInsertAllocateNothingAfterConstruction) {
  SignatureCache cache(256);
  std::mt19937_64 rng(7);
  const Name owner = name("a-rather-long-label.www.Example.COM.");
  const herald::test::AllocationScope scope;
  for (std::uint32_t i = 0; i < 10000; ++i) {
    const Key k =
        cache.key(1 + rng() % 3, owner, RRType{static_cast<std::uint16_t>(rng() % 200)}, 300);
    if (cache.find(k, kNow, kRefresh).status != Status::hit) cache.insert(k, value(i));
  }
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_GT(cache.counters().hits, 0u);
  EXPECT_GT(cache.counters().evictions, 0u);
}

TEST(SignatureCache, TheOwnerHashIgnoresCaseAndDiffersBetweenInstances) {
  SignatureCache a(4), b(4);
  const Name upper = name("WWW.Example."), lower = name("www.example.");
  EXPECT_EQ(a.owner_hash(upper), a.owner_hash(lower));
  EXPECT_EQ(a.key(1, upper, type::A, 300), a.key(1, lower, type::A, 300));
  EXPECT_NE(a.owner_hash(lower), a.owner_hash(name("www.example.com.")));
  // Each instance draws its own secret: the same name hashes differently
  // (equal by chance with probability 2^-64).
  EXPECT_NE(a.owner_hash(lower), b.owner_hash(lower));
  // A given secret hashes the same in every instance.
  SignatureCache c(4, kSecret), d(4, kSecret);
  EXPECT_EQ(c.owner_hash(upper), d.owner_hash(lower));
}

TEST(SignatureCache, CapacityIsAPowerOfTwoNumberOfSetsOfFour) {
  struct Case {
    std::size_t entries, capacity;
  };
  for (const Case& c : {Case{1, 4}, Case{4, 4}, Case{5, 8}, Case{17, 32}, Case{65536, 65536},
                        Case{65537, 131072}}) {
    SignatureCache cache(c.entries, kSecret);
    EXPECT_EQ(cache.capacity(), c.capacity) << c.entries;
    EXPECT_GE(cache.bytes(), c.capacity * sizeof(CachedSignatures)) << c.entries;
  }
  EXPECT_THROW(SignatureCache(SignatureCache::kMaxEntries + 1, kSecret), std::invalid_argument);
}

}  // namespace
}  // namespace herald::dns::signing
