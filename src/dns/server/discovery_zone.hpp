// The discovery zone: a DNS zone listing the live gateway nodes, so that a
// client (or a load balancer) finds a node with one SRV query and picks
// the least loaded one by the SRV weights (RFC 2782). heraldd serves it
// beside the zone files and rebuilds it when the node list changes
// (cluster mode: the node registry's live nodes; else this node alone).
// This file makes the zone's master-file text; the zone parser reads it
// like any zone file, so the zone gets every check a file gets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/values.hpp"

namespace herald::dns {

// A gateway node as the zone lists it.
struct GatewayNode {
  std::string id;  // its label in the zone
  std::string host;
  std::uint16_t port = 0;
  std::uint64_t connections = 0;
};

// What the zone is made of besides the nodes (heraldd's dns.* keys).
struct DiscoveryZone {
  std::string origin = "herald.internal.";  // dns.discovery_zone
  std::string ns_host;                      // dns.listen's host: the NS's address, when it is one
  std::string node_name = "node1";          // dns.node_name: this node's label when alone
  config::Endpoint gateway;                 // this node's gateway when alone
};

// 10000 / (1 + connections), at least 1: a node with fewer connections is
// picked more often by clients that honour SRV weights.
[[nodiscard]] std::uint16_t srv_weight(std::uint64_t connections);

// The zone's text: SOA and NS (the NS with an A or AAAA when ns_host is a
// concrete address), the gateway as _herald._tcp SRV, the node's A or AAAA
// (none when the gateway listens on a wildcard address), and a TXT with the
// version and address. With `nodes`, one SRV, address and TXT per node
// instead, each SRV weighted by srv_weight of the node's connections.
[[nodiscard]] std::string discovery_zone_text(const DiscoveryZone& zone, std::uint32_t serial,
                                              const std::vector<GatewayNode>& nodes = {});

}  // namespace herald::dns
