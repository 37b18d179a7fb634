#include "gateway/broker/shard_ring.hpp"

#include <algorithm>

namespace herald::gateway {

std::uint64_t ShardRing::hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

ShardRing::ShardRing(const std::vector<std::string>& shards) : shards_(shards.size()) {
  points_.reserve(shards.size() * kPointsPerShard);
  for (std::size_t s = 0; s < shards.size(); ++s) {
    for (unsigned i = 0; i < kPointsPerShard; ++i) {
      points_.push_back({hash(shards[s] + "#" + std::to_string(i)), static_cast<std::uint32_t>(s)});
    }
  }
  // Ties (astronomically rare) are broken by shard name order, so the
  // owner never depends on the order the addresses were listed in.
  std::sort(points_.begin(), points_.end(), [&](const Point& a, const Point& b) {
    return a.at != b.at ? a.at < b.at : shards[a.shard] < shards[b.shard];
  });
}

std::size_t ShardRing::shard_of(std::string_view room) const {
  if (shards_ <= 1) return 0;
  const std::uint64_t h = hash(room);
  auto it = std::lower_bound(points_.begin(), points_.end(), h,
                             [](const Point& p, std::uint64_t v) { return p.at < v; });
  if (it == points_.end()) it = points_.begin();
  return it->shard;
}

}  // namespace herald::gateway
