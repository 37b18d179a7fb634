// heraldd's DNS part: the dns::Server, its metrics, and reload (SIGHUP, the
// API) by swapping in the database dns::ZoneSetLoader builds from the [dns]
// settings (dns/server/zone_set_loader.hpp holds the rules: which zones,
// which keys, the discovery zone, what changed). Queries keep flowing
// through a reload; a zone that fails to load is logged with file:line and
// left out, the rest serve.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"
#include "core/metrics/registry.hpp"
#include "dns/server/discovery_zone.hpp"
#include "dns/server/notifier.hpp"
#include "dns/server/server.hpp"
#include "dns/server/settings.hpp"
#include "dns/server/zone_set_loader.hpp"
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
  void set_nodes(const std::vector<gateway::broker::ClusterNode>& nodes);
  // Binds and starts the shards; throws std::system_error on failure.
  void start();
  void stop();
  std::uint16_t port() const;
  std::size_t zone_count() const;

 private:
  dns::Settings settings_;
  dns::ZoneStore store_;
  std::unique_ptr<dns::Server> server_;
  std::unique_ptr<dns::Notifier> notifier_;
  bool huge_pages_warned_ = false;
  // Serializes load() and set_nodes() over the loader.
  std::mutex mu_;
  dns::ZoneSetLoader loader_;
  // Logs what the loader did, swaps its database in and sends the NOTIFYs;
  // mu_ held. `files`: after reading the zone files (not a node change).
  LoadReport publish(dns::ZoneSetUpdate update, bool files);
};

}  // namespace herald::heraldd
