// Which Redis instance holds a room: a consistent-hash ring. Each shard
// (a Redis address) owns kPointsPerShard points on a 64-bit circle, placed
// by hashing "<address>#<i>"; a room belongs to the first point at or after
// the hash of its name (wrapping). Adding a shard moves only the rooms that
// fall on its new points (about 1/(n+1) of them), and every node computes
// the same owner from the same address list, in any order. (Every key of a
// room also carries the room as its hash tag, so the keys of one room stay
// together in one slot should a shard be a Redis Cluster.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace herald::gateway {

class ShardRing {
 public:
  static constexpr unsigned kPointsPerShard = 128;

  // `shards` are names (addresses); index i in the list is shard i.
  explicit ShardRing(const std::vector<std::string>& shards);

  [[nodiscard]] std::size_t shard_of(std::string_view room) const;
  [[nodiscard]] std::size_t size() const { return shards_; }

  // FNV-1a, 64 bits, then a finalizer (murmur3's fmix64) so that names
  // differing in their last bytes spread over the whole circle.
  [[nodiscard]] static std::uint64_t hash(std::string_view s);

 private:
  struct Point {
    std::uint64_t at;
    std::uint32_t shard;
  };
  std::vector<Point> points_;  // sorted by `at`
  std::size_t shards_;
};

}  // namespace herald::gateway
