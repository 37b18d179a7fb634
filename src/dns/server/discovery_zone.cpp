#include "dns/server/discovery_zone.hpp"

#include <boost/asio/ip/address.hpp>

namespace herald::dns {

std::uint16_t srv_weight(std::uint64_t connections) {
  // Compared first: the count comes from another node's registry entry, and
  // 1 + UINT64_MAX would wrap to a division by zero.
  if (connections >= 10'000) return 1;
  // Safety: at most 10,000, which fits 16 bits.
  return static_cast<std::uint16_t>(10'000 / (1 + connections));
}

std::string discovery_zone_text(const DiscoveryZone& zone, std::uint32_t serial,
                                const std::vector<GatewayNode>& nodes) {
  std::string origin = zone.origin;
  if (!origin.ends_with('.')) origin += '.';
  std::string z = "$ORIGIN " + origin + "\n$TTL 30\n";
  z += "@ SOA ns hostmaster " + std::to_string(serial) + " 3600 600 86400 30\n";
  z += "@ NS ns\n";
  boost::system::error_code ec;
  auto dns_addr = boost::asio::ip::make_address(zone.ns_host, ec);
  if (!ec && !dns_addr.is_unspecified()) {
    z += std::string("ns ") + (dns_addr.is_v4() ? "A " : "AAAA ") + dns_addr.to_string() + "\n";
  }
  if (!nodes.empty()) {
    for (const auto& n : nodes) {
      z += "_herald._tcp SRV 0 " + std::to_string(srv_weight(n.connections)) + " " +
           std::to_string(n.port) + " " + n.id + "\n";
      auto a = boost::asio::ip::make_address(n.host, ec);
      if (!ec && !a.is_unspecified())
        z += n.id + (a.is_v4() ? " A " : " AAAA ") + a.to_string() + "\n";
      z += n.id + " TXT \"addr=" + n.host + ":" + std::to_string(n.port) +
           "\" \"connections=" + std::to_string(n.connections) + "\"\n";
    }
    return z;
  }
  z += "_herald._tcp SRV 0 0 " + std::to_string(zone.gateway.port) + " " + zone.node_name + "\n";
  auto gw = boost::asio::ip::make_address(zone.gateway.host, ec);
  if (!ec && !gw.is_unspecified()) {
    z += zone.node_name + (gw.is_v4() ? " A " : " AAAA ") + gw.to_string() + "\n";
  }
  z += zone.node_name + " TXT \"version=" HERALD_VERSION "\" \"addr=" + zone.gateway.to_string() +
       "\"\n";
  return z;
}

}  // namespace herald::dns
