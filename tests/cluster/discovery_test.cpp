// The node registry feeds the DNS discovery zone: every live node is an
// SRV record of _herald._tcp, weighted by its connections; a killed node
// leaves the zone within node_ttl + heartbeat_interval, a stopped one at once.
// Every check waits for the zone to come to a state: a live node that a
// loaded machine kept from heartbeating for a while only delays it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "cluster_support.hpp"

namespace herald::test {
namespace {

struct Srv {
  int weight = 0;
  int port = 0;
};

// name -> SRV, from `kdig +short` ("0 10000 41234 na.herald.internal.").
std::map<std::string, Srv> srv_records(std::uint16_t dns_port) {
  RunResult r = run({KDIG_PATH, "@127.0.0.1", "-p", std::to_string(dns_port), "+short", "+time=2",
                     "_herald._tcp.herald.internal", "SRV"},
                    {}, std::chrono::seconds(10));
  std::map<std::string, Srv> out;
  std::istringstream in(r.output);
  int prio = 0;
  Srv s;
  std::string target;
  while (in >> prio >> s.weight >> s.port >> target) out[target] = s;
  return out;
}

// A live node must miss twenty heartbeats in a row to look dead; a killed
// one is gone in about two seconds.
std::vector<std::string> node_flags(std::uint16_t redis_port, const std::string& id,
                                    bool dns = false) {
  std::vector<std::string> extra = {
      "--cluster.node_id", id, "--cluster.heartbeat_interval", "100ms", "--cluster.node_ttl", "2s"};
  if (dns) {
    for (const char* f :
         {"--dns.enabled", "true", "--dns.listen", "127.0.0.1:0", "--dns.threads", "1"})
      extra.emplace_back(f);
  }
  return cluster_flags(redis_port, extra);
}

TEST(ClusterDiscovery, TheZoneListsLiveNodesWeightedByConnectionsAndDropsDeadOnes) {
  RedisServer redis;
  Daemon a(node_flags(redis.port(), "na", true), {},
           std::regex(R"(dns listening addr=127\.0\.0\.1:(\d+))"));
  const std::uint16_t dns_port = a.port;
  Daemon b(node_flags(redis.port(), "nb"));
  auto c = std::make_unique<Daemon>(node_flags(redis.port(), "nc"));

  ASSERT_TRUE(eventually([&] { return srv_records(dns_port).size() == 3; }))
      << "zone never listed 3 nodes";
  auto srv = srv_records(dns_port);
  EXPECT_EQ(srv["nb.herald.internal."].port, b.port);
  EXPECT_EQ(srv["nc.herald.internal."].port, c->port);

  // Connections on b lower its weight below a's.
  std::vector<std::unique_ptr<WsClient>> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(connect_as(b.port, "u" + std::to_string(i)));
  EXPECT_TRUE(eventually([&] {
    auto s = srv_records(dns_port);
    return s.count("nb.herald.internal.") && s.count("na.herald.internal.") &&
           s["nb.herald.internal."].weight < s["na.herald.internal."].weight;
  }));

  // c dies without a word: it leaves the zone after its entry expires.
  c->proc->signal(SIGKILL);
  (void)c->proc->wait_exit(std::chrono::seconds(5));
  EXPECT_TRUE(eventually([&] {
    auto s = srv_records(dns_port);
    return s.size() == 2 && !s.count("nc.herald.internal.");
  }));
  // b stops cleanly and removes itself.
  clients.clear();
  b.proc->signal(SIGTERM);
  ASSERT_EQ(b.proc->wait_exit(std::chrono::seconds(10)), 0);
  // Removed on the way out, not left to expire.
  EXPECT_EQ(redis.command({"HEXISTS", "herald:nodes", "nb"}).integer, 0);
  EXPECT_TRUE(eventually([&] {
    auto s = srv_records(dns_port);
    return s.size() == 1 && s.count("na.herald.internal.");
  }));
}

}  // namespace
}  // namespace herald::test
