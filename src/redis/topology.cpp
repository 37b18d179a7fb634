#include "redis/topology.hpp"

#include <stdexcept>

namespace herald::redis {

Topology make_topology(std::string_view kind, const config::Endpoint& address,
                       std::string_view shards, std::uint32_t max_redirects, std::string section) {
  Topology t;
  t.kind = kind == "cluster" ? Topology::Kind::cluster : Topology::Kind::servers;
  t.address = address;
  t.max_redirects = max_redirects;
  for (std::string_view item : config::split_list(shards)) {
    auto ep = config::parse_endpoint(item);
    if (!ep) {
      throw std::runtime_error(section + ".shards: '" + std::string(item) +
                               "' is not an address (host:port)");
    }
    t.servers.push_back(*ep);
  }
  t.section = std::move(section);
  return t;
}

}  // namespace herald::redis
