// Which of several plain Redis servers holds a key: a consistent-hash ring.
// Each server (named by its address) owns kPointsPerServer points on a
// 64-bit circle, placed by hashing "<address>#<i>"; a name belongs to the
// first point at or after its own hash (wrapping). Adding a server moves
// only the names that fall on its new points (about 1/(n+1) of them), and
// every process computes the same owner from the same address list, in any
// order. The Router hashes a key's hash tag (cluster_slots.hpp), as Redis
// Cluster does, so every key of one room or one dictionary lands on one
// server, the one its name picks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace herald::redis {

class HashRing {
 public:
  static constexpr unsigned kPointsPerServer = 128;

  // `servers` are names (addresses); index i in the list is server i.
  explicit HashRing(const std::vector<std::string>& servers);

  [[nodiscard]] std::size_t server_of(std::string_view name) const;
  [[nodiscard]] std::size_t size() const { return servers_; }

  // FNV-1a, 64 bits, then a finalizer (murmur3's fmix64) so that names
  // differing in their last bytes spread over the whole circle.
  [[nodiscard]] static std::uint64_t hash(std::string_view s);

 private:
  struct Point {
    std::uint64_t at;
    std::uint32_t server;
  };
  std::vector<Point> points_;  // sorted by `at`
  std::size_t servers_;
};

}  // namespace herald::redis
