#include "redis/hash_ring.hpp"

#include <algorithm>

namespace herald::redis {

std::uint64_t HashRing::hash(std::string_view s) {
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

HashRing::HashRing(const std::vector<std::string>& servers) : servers_(servers.size()) {
  points_.reserve(servers.size() * kPointsPerServer);
  for (std::size_t s = 0; s < servers.size(); ++s) {
    for (unsigned i = 0; i < kPointsPerServer; ++i) {
      points_.push_back(
          {hash(servers[s] + "#" + std::to_string(i)), static_cast<std::uint32_t>(s)});
    }
  }
  // Ties (astronomically rare) are broken by server name order, so the
  // owner never depends on the order the addresses were listed in.
  std::sort(points_.begin(), points_.end(), [&](const Point& a, const Point& b) {
    return a.at != b.at ? a.at < b.at : servers[a.server] < servers[b.server];
  });
}

std::size_t HashRing::server_of(std::string_view name) const {
  if (servers_ <= 1) return 0;
  const std::uint64_t h = hash(name);
  auto it = std::lower_bound(points_.begin(), points_.end(), h,
                             [](const Point& p, std::uint64_t v) { return p.at < v; });
  if (it == points_.end()) it = points_.begin();
  return it->server;
}

}  // namespace herald::redis
