#include "dns_service.hpp"

#include <stdexcept>

#include "core/json.hpp"
#include "core/log.hpp"
#include "core/memory/huge_pages.hpp"
#include "dns/notify.hpp"
#include "dns_metrics.hpp"

namespace herald::heraldd {

DnsService::DnsService(const dns::Settings& settings, config::Endpoint gateway,
                       metrics::Registry& registry)
    : settings_(settings),
      loader_(settings_, {.origin = settings_.discovery_zone,
                          .ns_host = settings_.listen.host,
                          .node_name = settings_.node_name,
                          .gateway = std::move(gateway)}) {
  auto options = dns::server_options(settings_);
  if (!options) throw std::runtime_error(options.error());
  auto secondaries = dns::notify_targets(settings_);
  if (!secondaries) throw std::runtime_error(secondaries.error());
  notifier_ = std::make_unique<dns::Notifier>(std::move(*secondaries));
  server_ = std::make_unique<dns::Server>(*options, store_);
  register_dns_metrics(registry, *server_, *notifier_);
  registry.callback("herald_dns_zones", "Zones served",
                    [this] { return static_cast<double>(zone_count()); });
}

DnsService::~DnsService() {
  stop();
}

std::string load_report_json(const LoadReport& r) {
  std::string out = "{\"zones\":" + std::to_string(r.zones) +
                    ",\"failed\":" + std::to_string(r.failed) +
                    ",\"changed\":" + std::to_string(r.changed) + ",\"errors\":[";
  for (std::size_t i = 0; i < r.errors.size(); ++i) {
    const dns::ZoneError& e = r.errors[i];
    if (i) out += ',';
    out += "{\"file\":";
    json::append_string(out, e.file);
    out += ",\"line\":" + std::to_string(e.line) + ",\"column\":" + std::to_string(e.column) +
           ",\"message\":";
    json::append_string(out, e.message);
    out += '}';
  }
  return out + "]}";
}

void DnsService::set_nodes(const std::vector<gateway::broker::ClusterNode>& nodes) {
  std::vector<dns::GatewayNode> listed;
  listed.reserve(nodes.size());
  for (const auto& n : nodes) listed.push_back({n.id, n.host, n.port, n.connections});
  std::lock_guard lock(mu_);
  (void)publish(loader_.set_nodes(std::move(listed)), false);
}

LoadReport DnsService::load() {
  std::lock_guard lock(mu_);
  return publish(loader_.load_files(), true);
}

LoadReport DnsService::publish(dns::ZoneSetUpdate update, bool files) {
  for (const dns::Name& zone : update.unused_keys) {
    log::warn("dns keys for a zone not served: not used",
              {{"zone", zone.to_text()},
               {"keys_dir", settings_.keys_dir},
               {"fix", "add the zone to dns.zones (check its spelling), or remove its keys"}});
  }
  for (const auto& e : update.errors) log::error("zone not loaded", {{"error", e.to_string()}});
  const dns::ZoneDb& db = *update.db;
  // A node list change rebuilds the discovery zone about once a heartbeat
  // while connections move: logged at debug, not info.
  std::size_t online = 0;
  for (std::size_t i = 0; i < db.size(); ++i) online += db.zone(i).keys() != nullptr ? 1 : 0;
  (files ? log::info : log::debug)("dns zones loaded", {{"zones", db.size()},
                                                        {"failed", update.failed},
                                                        {"changed", update.changed.size()},
                                                        {"signed_online", online}});
  LoadReport report{db.size(), update.failed, update.changed.size(), std::move(update.errors)};
  store_.set(std::move(update.db));
  if (settings_.huge_pages && files) {
    // A query touches a dozen scattered cache lines of a zone; over
    // thousands of zones each is a TLB miss with 4 KiB pages. Measured on
    // D1 (bench_dns_d1, 20,000 zones): 20-30% less CPU per answer with the
    // heap in huge pages (docs/benchmarks.md).
    memory::HugePages hp = memory::back_heap_with_huge_pages();
    if (hp.kib == 0 && !huge_pages_warned_) {
      huge_pages_warned_ = true;  // once: it will not change by reloading
      log::warn("dns zones not in huge pages", {{"error", hp.error}});
    }
    // A partial collapse (after a reload, some ranges may refuse it) is
    // finished later by khugepaged: the heap keeps its MADV_HUGEPAGE.
    log::info("dns heap huge pages",
              {{"kib", hp.kib}, {"note", hp.error.empty() ? "-" : hp.error}});
  }
  if (notifier_ && !notifier_->empty()) notifier_->notify(std::move(update.changed));
  return report;
}

void DnsService::start() {
  server_->start();
  log::info("dns listening",
            {{"addr", settings_.listen.host + ":" + std::to_string(server_->port())},
             {"shards", server_->shard_count()}});
}

void DnsService::stop() {
  if (server_) server_->stop();
  if (notifier_) notifier_->join();
}

std::uint16_t DnsService::port() const {
  return server_->port();
}
std::size_t DnsService::zone_count() const {
  return store_.get()->size();
}

}  // namespace herald::heraldd
