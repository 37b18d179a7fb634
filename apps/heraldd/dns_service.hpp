// heraldd's DNS part: the [dns] settings, the zones they name (a directory,
// a list, and the discovery zone listing this node), the dns::Server that
// answers from them, its metrics, and reload (SIGHUP) by swapping a freshly
// loaded database in (queries keep flowing; a zone that fails to load is
// reported with file:line and left out, the rest serve).
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
#include "dns/server/notifier.hpp"
#include "dns/server/server.hpp"
#include "gateway/broker/node_registry.hpp"

namespace herald::heraldd {

struct DnsSettings {
  bool enabled = false;
  config::Endpoint listen{"127.0.0.1", 5353};
  int threads = 0;
  std::string zones_dir;
  std::string zones;  // "origin=path, origin=path"
  std::chrono::milliseconds tcp_idle_timeout{10'000};
  int max_tcp_connections = 1000;
  int max_udp_payload = 1232;
  int max_chain = 12;
  std::string nsid;
  std::string discovery_zone = "herald.internal.";
  std::string node_name = "node1";
  std::string transfer_allow;  // "192.0.2.7, 198.51.100.0/24"
  std::string notify;          // secondaries: "192.0.2.7:53, [2001:db8::7]:53"
  int rrl_rate = 0;            // responses per second per client network; 0: off
  int rrl_slip = 2;
  bool cookies = true;
  std::string cookie_secret;  // 32 hex digits; empty: random per start
  bool require_cookies = false;
  bool huge_pages = true;
};

// Backs the process heap (where the zone database lives) with transparent
// huge pages: MADV_HUGEPAGE on the [heap] mapping, so that later growth
// faults in 2 MiB pages, and MADV_COLLAPSE, so that what is there already
// is collapsed now. Returns the heap's huge-page KiB after (AnonHugePages of
// the mapping), and what failed if anything did (no THP, a kernel before
// 6.1, a heap smaller than one huge page). Linux only.
struct HugePages {
  std::size_t kib = 0;
  std::string error;
};
HugePages back_heap_with_huge_pages();

void register_dns_settings(config::Schema& schema, DnsSettings& s);

// The discovery zone's master-file text: SOA and NS, the gateway as
// _herald._tcp SRV, the node's A or AAAA (none when the gateway listens on a
// wildcard address), and a TXT with the version and address. With `nodes`
// (cluster mode: the live nodes from the node registry) one SRV, address
// and TXT per node instead, each SRV weighted by the node's spare share of
// the connections (srv_weight). Public for tests.
std::string discovery_zone_text(const DnsSettings& s, const config::Endpoint& gateway,
                                std::uint32_t serial,
                                const std::vector<gateway::ClusterNode>& nodes = {});
// 10000 / (1 + connections), at least 1: a node with fewer connections is
// picked more often by clients that honour SRV weights (RFC 2782).
std::uint16_t srv_weight(std::uint64_t connections);

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
  DnsService(const DnsSettings& settings, config::Endpoint gateway, metrics::Registry& registry);
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
  void set_nodes(std::vector<gateway::ClusterNode> nodes);
  // Binds and starts the shards; throws std::system_error on failure.
  void start();
  void stop();
  std::uint16_t port() const;
  std::size_t zone_count() const;

 private:
  DnsSettings settings_;
  config::Endpoint gateway_;
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
  std::vector<gateway::ClusterNode> nodes_;
  // Adds the discovery zone to the file zones and swaps the database in;
  // mu_ held. `files`: after reading the zone files (not a node change).
  LoadReport publish(std::vector<dns::ZoneError> errors, bool files);
};

}  // namespace herald::heraldd
