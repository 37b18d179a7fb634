// heraldd's DNS part: the zones its [dns] settings (dns/server/settings.hpp)
// name (a directory, a list, and the discovery zone listing the gateway
// nodes, dns/server/discovery_zone.hpp), the dns::Server that answers from
// them, its metrics, and reload (SIGHUP) by swapping a freshly loaded
// database in (queries keep flowing; a zone that fails to load is reported
// with file:line and left out, the rest serve).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"
#include "core/metrics/registry.hpp"
#include "dns/server/discovery_zone.hpp"
#include "dns/server/notifier.hpp"
#include "dns/server/server.hpp"
#include "dns/server/settings.hpp"
#include "gateway/broker/node_registry.hpp"

namespace herald::heraldd {

// What one load or reload did: the zones now served, the zones left out
// and why (file:line for a zone file), the zones new or changed (each gets a
// NOTIFY to the secondaries).
struct LoadReport {
  std::size_t zones = 0;
  std::size_t failed = 0;
  std::size_t changed = 0;
  std::vector<dns::ZoneError> errors;
};

// The report as the JSON result of POST /api/dns/reload (docs/protocol.md):
// {"zones","failed","changed","errors":[{"file","line","column","message"}...]}
std::string load_report_json(const LoadReport& r);

class DnsService {
 public:
  // Throws std::runtime_error naming the setting when one cannot be used
  // (an unparsable dns.transfer_allow).
  DnsService(const dns::Settings& settings, config::Endpoint gateway, metrics::Registry& registry);
  ~DnsService();

  // (Re)loads every zone and swaps the new database in: queries in flight
  // finish on the old database, later ones see the new one, none is
  // dropped. A zone that fails is left out (the others serve) and logged,
  // one line per problem. heraldd calls it from its control thread (start,
  // SIGHUP, the API); set_nodes() may run at the same time from the cluster
  // broker's thread, and a lock serializes the two.
  LoadReport load();
  // Cluster mode: the live nodes changed; the discovery zone is rebuilt
  // (zone files are not read again). Any thread.
  void set_nodes(const std::vector<gateway::ClusterNode>& nodes);
  // Binds and starts the shards; throws std::system_error on failure.
  void start();
  void stop();
  std::uint16_t port() const;
  std::size_t zone_count() const;

 private:
  dns::Settings settings_;
  dns::DiscoveryZone discovery_;
  dns::ZoneStore store_;
  std::unique_ptr<dns::Server> server_;
  std::unique_ptr<dns::Notifier> notifier_;
  std::unordered_map<std::string, std::uint32_t> serials_;  // by origin, as last loaded
  std::uint32_t serial_ = 0;
  bool huge_pages_warned_ = false;
  // Guards what load() and set_nodes() share.
  std::mutex mu_;
  std::vector<std::shared_ptr<const dns::Zone>> file_zones_;
  std::size_t file_failed_ = 0;
  std::vector<dns::GatewayNode> nodes_;  // empty: this node alone
  // Adds the discovery zone to the file zones and swaps the database in;
  // mu_ held. `files`: after reading the zone files (not a node change).
  LoadReport publish(std::vector<dns::ZoneError> errors, bool files);
};

}  // namespace herald::heraldd
