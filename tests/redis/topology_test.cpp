// A topology from its configuration keys (redis/topology.hpp): the shards
// list parsed, the kind chosen, and a bad entry refused naming its key.
#include "redis/topology.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace herald::redis {
namespace {

TopologySettings settings(std::string kind, config::Endpoint address, std::string shards,
                          std::uint32_t max_redirects) {
  TopologySettings s;
  s.kind = std::move(kind);
  s.address = std::move(address);
  s.shards = std::move(shards);
  s.max_redirects = max_redirects;
  return s;
}

TEST(Topology, FromTheSectionsKeys) {
  Topology t = make_topology(
      settings("servers", {"10.0.0.1", 6379}, "10.0.0.5:6379, [::1]:6380", 3), "keywords.redis");
  EXPECT_EQ(t.kind, Topology::Kind::servers);
  ASSERT_EQ(t.servers.size(), 2u);
  EXPECT_EQ(t.servers[1], (config::Endpoint{"::1", 6380}));
  EXPECT_EQ(t.max_redirects, 3u);
  EXPECT_EQ(t.section, "keywords.redis");
  Topology c = make_topology(settings("cluster", {"10.0.0.1", 7000}, "", kDefaultMaxRedirects),
                             "cluster.redis");
  EXPECT_EQ(c.kind, Topology::Kind::cluster);
  EXPECT_TRUE(c.servers.empty());
  EXPECT_EQ(c.address.port, 7000);
}

TEST(Topology, ABadShardNamesTheKeyAndTheEntry) {
  try {
    (void)make_topology(settings("servers", {"127.0.0.1", 6379}, "10.0.0.5:6379, nope", 5),
                        "keywords.redis");
    FAIL() << "a shard that is not an address was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "keywords.redis.shards: 'nope' is not an address (host:port)");
  }
}

// Sentinel: the list parsed like shards; both keys are needed, and each
// missing one is named.
TEST(Topology, SentinelNeedsItsSentinelsAndTheMastersName) {
  TopologySettings s = settings("sentinel", {"127.0.0.1", 6379}, "", 5);
  s.sentinels = "10.0.0.7:26379, 10.0.0.8:26379";
  s.master_name = "herald";
  Topology t = make_topology(s, "cluster.redis");
  EXPECT_EQ(t.kind, Topology::Kind::sentinel);
  ASSERT_EQ(t.sentinels.size(), 2u);
  EXPECT_EQ(t.sentinels[1], (config::Endpoint{"10.0.0.8", 26379}));
  EXPECT_EQ(t.master_name, "herald");
  auto refusal = [](const TopologySettings& bad) {
    try {
      (void)make_topology(bad, "cluster.redis");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  TopologySettings no_name = s;
  no_name.master_name.clear();
  EXPECT_EQ(refusal(no_name).rfind("cluster.redis.master_name: ", 0), 0u) << refusal(no_name);
  TopologySettings none = s;
  none.sentinels.clear();
  EXPECT_EQ(refusal(none).rfind("cluster.redis.sentinels: ", 0), 0u) << refusal(none);
  TopologySettings bad = s;
  bad.sentinels = "10.0.0.7:26379, sentinel";
  EXPECT_EQ(refusal(bad), "cluster.redis.sentinels: 'sentinel' is not an address (host:port)");
}

}  // namespace
}  // namespace herald::redis
