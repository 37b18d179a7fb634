#include "redis/topology.hpp"

#include <stdexcept>

namespace herald::redis {
namespace {

std::vector<config::Endpoint> endpoints(std::string_view list, const std::string& key) {
  std::vector<config::Endpoint> out;
  for (std::string_view item : config::split_list(list)) {
    auto ep = config::parse_endpoint(item);
    if (!ep) {
      throw std::runtime_error(key + ": '" + std::string(item) + "' is not an address (host:port)");
    }
    out.push_back(*ep);
  }
  return out;
}

}  // namespace

void register_topology_settings(config::Schema& s, const std::string& section,
                                std::string_view used_when, std::string_view what,
                                TopologySettings& t) {
  const std::string w(what);
  s.add_endpoint(section + ".address", t.address,
                 "Redis server for " + std::string(used_when) +
                     " (host:port); with topology = cluster, any node of the Redis Cluster");
  s.add_choice(section + ".topology", t.kind, {"servers", "cluster", "sentinel"},
               "servers: plain Redis servers (address, or those of shards, by consistent hash); "
               "cluster: address is a Redis Cluster node, " +
                   w +
                   " routed by its slot map (read at start-up, kept current by MOVED "
                   "redirections and re-read while a master is down); sentinel: the master "
                   "that the sentinels name under master_name, asked again on every reconnect "
                   "(a failover is followed without a restart)");
  s.add_int(section + ".max_redirects", t.max_redirects, 0, 100,
            "Redis Cluster: MOVED/ASK redirections one command may follow; one more fails it "
            "(error 114)");
  s.add_string(section + ".shards", t.shards,
               "Several Redis servers, " + w +
                   " spread over them by consistent hash (\"host:port, host:port\"); empty: " +
                   section + ".address alone");
  s.add_string(section + ".sentinels", t.sentinels,
               "topology = sentinel: the Redis Sentinels to ask where the master is "
               "(\"host:port, host:port\")");
  s.add_string(section + ".master_name", t.master_name,
               "topology = sentinel: the name the Sentinels monitor the master under", 256);
}

Topology make_topology(const TopologySettings& settings, std::string section) {
  Topology t;
  t.kind = settings.kind == "cluster"    ? Topology::Kind::cluster
           : settings.kind == "sentinel" ? Topology::Kind::sentinel
                                         : Topology::Kind::servers;
  t.address = settings.address;
  t.max_redirects = settings.max_redirects;
  t.servers = endpoints(settings.shards, section + ".shards");
  t.sentinels = endpoints(settings.sentinels, section + ".sentinels");
  t.master_name = settings.master_name;
  if (t.kind == Topology::Kind::sentinel) {
    if (t.sentinels.empty()) {
      throw std::runtime_error(section +
                               ".sentinels: topology \"sentinel\" needs the Sentinels' "
                               "addresses (\"host:port, host:port\")");
    }
    if (t.master_name.empty()) {
      throw std::runtime_error(section +
                               ".master_name: topology \"sentinel\" needs the name the "
                               "Sentinels monitor the master under (sentinel monitor <name> ...)");
    }
  }
  t.section = std::move(section);
  return t;
}

}  // namespace herald::redis
