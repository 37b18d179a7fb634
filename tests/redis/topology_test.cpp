// A topology from its configuration keys (redis/topology.hpp): the shards
// list parsed, the kind chosen, and a bad entry refused naming its key.
#include "redis/topology.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace herald::redis {
namespace {

TEST(Topology, FromTheSectionsKeys) {
  Topology t = make_topology("servers", {"10.0.0.1", 6379}, "10.0.0.5:6379, [::1]:6380", 3,
                             "keywords.redis");
  EXPECT_EQ(t.kind, Topology::Kind::servers);
  ASSERT_EQ(t.servers.size(), 2u);
  EXPECT_EQ(t.servers[1], (config::Endpoint{"::1", 6380}));
  EXPECT_EQ(t.max_redirects, 3u);
  EXPECT_EQ(t.section, "keywords.redis");
  Topology c =
      make_topology("cluster", {"10.0.0.1", 7000}, "", kDefaultMaxRedirects, "cluster.redis");
  EXPECT_EQ(c.kind, Topology::Kind::cluster);
  EXPECT_TRUE(c.servers.empty());
  EXPECT_EQ(c.address.port, 7000);
}

TEST(Topology, ABadShardNamesTheKeyAndTheEntry) {
  try {
    (void)make_topology("servers", {"127.0.0.1", 6379}, "10.0.0.5:6379, nope", 5, "keywords.redis");
    FAIL() << "a shard that is not an address was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "keywords.redis.shards: 'nope' is not an address (host:port)");
  }
}

}  // namespace
}  // namespace herald::redis
