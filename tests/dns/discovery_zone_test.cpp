// The discovery zone's text (dns/server/discovery_zone.hpp), read back by
// the zone parser as heraldd reads it: the records a client finds, for this
// node alone and for a cluster's live nodes, with SRV weights that favour
// the least loaded node.
#include "dns/server/discovery_zone.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "dns/rdata.hpp"
#include "dns/zone.hpp"
#include "dns/zone_parser.hpp"

namespace herald::dns {
namespace {

// Every record of the zone as "owner TYPE rdata", through the parser and
// the zone builder (which reject what a zone file may not hold).
std::set<std::string> records_of(const std::string& text, const std::string& origin) {
  ZoneOptions zo;
  zo.origin = Name::from_text(origin).value();
  ZoneResult parsed = parse_zone_text(text, "(discovery zone)", zo);
  EXPECT_TRUE(parsed.ok()) << (parsed.errors.empty() ? "" : parsed.errors[0].to_string());
  std::set<std::string> out;
  for (const Record& r : parsed.records) {
    std::string line = r.owner.to_text() + " " + type_to_text(r.type) + " ";
    rdata_to_text(r.type, r.rdata, line);
    out.insert(line);
  }
  ZoneLoad z = build_zone(zo.origin, std::move(parsed));
  EXPECT_TRUE(z.zone != nullptr) << (z.errors.empty() ? "" : z.errors[0].to_string());
  return out;
}

TEST(DiscoveryZone, ThisNodeAlone) {
  DiscoveryZone dz{.origin = "herald.internal",
                   .ns_host = "127.0.0.1",
                   .node_name = "edge1",
                   .gateway = {"192.0.2.10", 8080}};
  const std::set<std::string> expected = {
      "herald.internal. SOA ns.herald.internal. hostmaster.herald.internal. 7 3600 600 86400 30",
      "herald.internal. NS ns.herald.internal.",
      "ns.herald.internal. A 127.0.0.1",
      "_herald._tcp.herald.internal. SRV 0 0 8080 edge1.herald.internal.",
      "edge1.herald.internal. A 192.0.2.10",
      "edge1.herald.internal. TXT \"version=" HERALD_VERSION "\" \"addr=192.0.2.10:8080\"",
  };
  EXPECT_EQ(records_of(discovery_zone_text(dz, 7), "herald.internal."), expected);
}

TEST(DiscoveryZone, WildcardAddressesGetNoAddressRecords) {
  DiscoveryZone dz{
      .origin = "d.example.", .ns_host = "0.0.0.0", .node_name = "n", .gateway = {"::", 9000}};
  auto got = records_of(discovery_zone_text(dz, 1), "d.example.");
  for (const auto& r : got) {
    EXPECT_EQ(r.find(" A "), std::string::npos) << r;
    EXPECT_EQ(r.find(" AAAA "), std::string::npos) << r;
  }
  EXPECT_TRUE(got.count("_herald._tcp.d.example. SRV 0 0 9000 n.d.example."));
}

TEST(DiscoveryZone, ClusterNodesEachWithAWeightByTheirLoad) {
  DiscoveryZone dz{
      .origin = "herald.internal.", .ns_host = "::1", .node_name = "node1", .gateway = {}};
  const std::vector<GatewayNode> nodes = {{"a", "10.0.0.1", 8080, 0},
                                          {"b", "2001:db8::2", 8081, 99},
                                          {"c", "10.0.0.3", 8082, 1'000'000}};
  auto got = records_of(discovery_zone_text(dz, 3, nodes), "herald.internal.");
  EXPECT_TRUE(got.count("ns.herald.internal. AAAA ::1"));
  EXPECT_TRUE(got.count("_herald._tcp.herald.internal. SRV 0 10000 8080 a.herald.internal."));
  EXPECT_TRUE(got.count("_herald._tcp.herald.internal. SRV 0 100 8081 b.herald.internal."));
  EXPECT_TRUE(got.count("_herald._tcp.herald.internal. SRV 0 1 8082 c.herald.internal."));
  EXPECT_TRUE(got.count("a.herald.internal. A 10.0.0.1"));
  EXPECT_TRUE(got.count("b.herald.internal. AAAA 2001:db8::2"));
  EXPECT_TRUE(got.count("b.herald.internal. TXT \"addr=2001:db8::2:8081\" \"connections=99\""));
  // The node name of a single node is not listed when the cluster's are.
  for (const auto& r : got) EXPECT_EQ(r.find("node1"), std::string::npos) << r;
}

TEST(DiscoveryZone, SrvWeightFavoursTheLeastLoadedAndNeverReachesZero) {
  EXPECT_EQ(srv_weight(0), 10000);
  EXPECT_EQ(srv_weight(1), 5000);
  EXPECT_EQ(srv_weight(9999), 1);
  EXPECT_EQ(srv_weight(10'000), 1);
  EXPECT_EQ(srv_weight(UINT64_MAX), 1);  // a count read from another node: no overflow
  for (std::uint64_t c = 0; c < 20000; c += 7) EXPECT_GE(srv_weight(c), srv_weight(c + 1));
}

}  // namespace
}  // namespace herald::dns
