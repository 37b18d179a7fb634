#include "dns_service.hpp"

#include <algorithm>
#include <ctime>
#include <stdexcept>

#include "core/json.hpp"
#include "core/log.hpp"
#include "core/memory/huge_pages.hpp"
#include "dns/notify.hpp"
#include "dns/signing/key_directory.hpp"

namespace herald::heraldd {

namespace {

std::string trim(std::string_view v) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  return std::string(v);
}

}  // namespace

DnsService::DnsService(const dns::Settings& settings, config::Endpoint gateway,
                       metrics::Registry& registry)
    : settings_(settings),
      discovery_{.origin = settings_.discovery_zone,
                 .ns_host = settings_.listen.host,
                 .node_name = settings_.node_name,
                 .gateway = std::move(gateway)} {
  auto options = dns::server_options(settings_);
  if (!options) throw std::runtime_error(options.error());
  auto secondaries = dns::notify_targets(settings_);
  if (!secondaries) throw std::runtime_error(secondaries.error());
  notifier_ = std::make_unique<dns::Notifier>(std::move(*secondaries));
  server_ = std::make_unique<dns::Server>(*options, store_);
  dns::Server* srv = server_.get();
  for (unsigned i = 0; i < srv->shard_count(); ++i) {
    // One series per shard: each is written by its shard's thread alone.
    srv->set_latency_histogram(
        i, &registry.histogram("herald_dns_response_seconds",
                               "Time to answer a DNS query (decode, lookup, encode), per shard",
                               metrics::exponential_buckets(1e-6, 2, 16),
                               {{"shard", std::to_string(i)}}));
  }
  for (std::size_t i = 0; i < dns::kTypeSlots; ++i) {
    std::string t =
        i < dns::kCountedTypes.size() ? dns::type_to_text(dns::kCountedTypes[i]) : "other";
    registry.callback("herald_dns_queries_total", "DNS queries answered, by query type",
                      [srv, i] { return static_cast<double>(srv->queries_of_type(i)); }, true,
                      {{"type", t}});
  }
  for (std::size_t i = 0; i < dns::kRcodeSlots; ++i) {
    std::string rc = i < dns::kRcodeNames.size() ? std::string(dns::kRcodeNames[i]) : "other";
    registry.callback("herald_dns_responses_total", "DNS responses sent, by RCODE",
                      [srv, i] { return static_cast<double>(srv->responses_with_rcode(i)); }, true,
                      {{"rcode", rc}});
  }
  registry.callback(
      "herald_dns_dropped_total",
      "DNS queries dropped unanswered (malformed beyond answering, a UDP datagram over 4096 "
      "octets, or a reply the socket buffer could not take)",
      [srv] { return static_cast<double>(srv->dropped()); }, true);
  registry.callback(
      "herald_dns_truncated_total", "DNS UDP responses sent with TC set",
      [srv] { return static_cast<double>(srv->truncated()); }, true);
  registry.callback(
      "herald_dns_tcp_refused_total", "DNS TCP connections closed at dns.max_tcp_connections",
      [srv] { return static_cast<double>(srv->tcp_refused()); }, true);
  registry.callback(
      "herald_dns_tcp_spent_total",
      "DNS TCP connections closed at dns.tcp_max_queries or dns.tcp_lifetime",
      [srv] { return static_cast<double>(srv->tcp_spent()); }, true);
  for (auto [state, name] : {std::pair{dns::CookieState::client_only, "client_only"},
                             {dns::CookieState::valid, "valid"},
                             {dns::CookieState::invalid, "invalid"}}) {
    registry.callback("herald_dns_cookies_total",
                      "DNS queries with a COOKIE option, by what it held",
                      [srv, st = state] { return static_cast<double>(srv->cookies(st)); }, true,
                      {{"state", name}});
  }
  registry.callback(
      "herald_dns_rrl_dropped_total", "DNS UDP answers dropped over dns.rrl_rate",
      [srv] { return static_cast<double>(srv->rrl_dropped()); }, true);
  registry.callback(
      "herald_dns_rrl_slipped_total", "DNS UDP answers sent truncated over dns.rrl_rate",
      [srv] { return static_cast<double>(srv->rrl_slipped()); }, true);
  for (auto [stat, name] : {std::pair{dns::SigningStat::hits, "hit"},
                            {dns::SigningStat::misses, "miss"},
                            {dns::SigningStat::stale, "stale"}}) {
    registry.callback(
        "herald_dns_signature_cache_total",
        "RRsets of zones signed online answered with DO, by whether the shard's signature cache "
        "held their signatures (hit), did not (miss), or held them near expiry (stale)",
        [srv, st = stat] { return static_cast<double>(srv->signing(st)); }, true,
        {{"result", name}});
  }
  registry.callback(
      "herald_dns_signature_cache_evictions_total",
      "Signature cache entries evicted to make room (dns.signature_cache_entries)",
      [srv] { return static_cast<double>(srv->signing(dns::SigningStat::evictions)); }, true);
  registry.callback(
      "herald_dns_signatures_total", "DNSSEC signatures made at query time",
      [srv] { return static_cast<double>(srv->signing(dns::SigningStat::signatures)); }, true);
  registry.callback(
      "herald_dns_signing_failures_total",
      "RRsets that could not be signed (the query was answered SERVFAIL)",
      [srv] { return static_cast<double>(srv->signing(dns::SigningStat::failures)); }, true);
  registry.callback("herald_dns_tcp_connections", "DNS TCP connections open",
                    [srv] { return static_cast<double>(srv->tcp_connections()); });
  dns::Notifier* n = notifier_.get();
  registry.callback(
      "herald_dns_notify_sent_total", "NOTIFY messages sent (retransmissions included)",
      [n] { return static_cast<double>(n->sent()); }, true);
  registry.callback(
      "herald_dns_notify_acked_total", "NOTIFY messages a secondary answered",
      [n] { return static_cast<double>(n->acknowledged()); }, true);
  registry.callback(
      "herald_dns_notify_failed_total", "NOTIFY messages never answered after every retry",
      [n] { return static_cast<double>(n->failed()); }, true);
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

void DnsService::set_nodes(const std::vector<gateway::ClusterNode>& nodes) {
  std::vector<dns::GatewayNode> listed;
  listed.reserve(nodes.size());
  for (const auto& n : nodes) listed.push_back({n.id, n.host, n.port, n.connections});
  std::lock_guard lock(mu_);
  nodes_ = std::move(listed);
  (void)publish({}, false);
}

LoadReport DnsService::load() {
  std::lock_guard lock(mu_);
  std::vector<dns::ZoneError> errors;
  std::vector<dns::ZoneSource> sources;
  if (!settings_.zones_dir.empty()) sources = dns::zone_directory(settings_.zones_dir, errors);
  for (std::string_view item : config::split_list(settings_.zones)) {
    std::size_t eq = item.find('=');
    std::string o = trim(item.substr(0, eq == std::string::npos ? item.size() : eq));
    auto origin = dns::Name::from_text(o.ends_with('.') ? o : o + ".");
    if (eq == std::string::npos || !origin) {
      errors.push_back(
          {"dns.zones", 0, 0, "expected origin=path, got '" + std::string(item) + "'"});
      continue;
    }
    sources.push_back({origin.value(), trim(item.substr(eq + 1))});
  }
  // Keys are read again on every load: a key change is a reload.
  std::size_t key_failed = 0;
  if (!settings_.keys_dir.empty()) {
    dns::signing::KeyDirectory keys = dns::signing::KeyDirectory::scan(settings_.keys_dir, errors);
    if (!keys.readable()) {
      // Which zones are signed online is unknown: serving any of them
      // unsigned would be bogus to validators. Keep what was loaded before
      // (nothing, at start).
      errors.push_back({settings_.keys_dir, 0, 0,
                        "no zone reloaded: without the keys directory, zones signed online would "
                        "be served unsigned; the zones loaded before are kept"});
      return publish(std::move(errors), true);
    }
    for (const dns::Name& zone : keys.unserved(sources)) {
      log::warn("dns keys for a zone not served: not used",
                {{"zone", zone.to_text()},
                 {"keys_dir", settings_.keys_dir},
                 {"fix", "add the zone to dns.zones (check its spelling), or remove its keys"}});
    }
    key_failed = dns::signing::attach_keys(keys, sources, errors);
  }
  dns::DbLoad load = dns::load_zones(sources, dns::zone_limits(settings_));
  load.failed += key_failed;
  std::vector<std::shared_ptr<const dns::Zone>> zones;
  if (load.db) {
    for (std::size_t i = 0; i < load.db->size(); ++i) {
      // ZoneDb keeps its zones by shared_ptr; rebuilding one with the
      // discovery zone added costs one index build, at load time only.
      zones.push_back(std::shared_ptr<const dns::Zone>(load.db, &load.db->zone(i)));
    }
  }
  for (auto& e : load.errors) errors.push_back(std::move(e));
  file_zones_ = std::move(zones);
  file_failed_ = load.failed;
  return publish(std::move(errors), true);
}

LoadReport DnsService::publish(std::vector<dns::ZoneError> errors, bool files) {
  std::vector<std::shared_ptr<const dns::Zone>> zones = file_zones_;
  std::size_t failed = file_failed_;
  if (!discovery_.origin.empty()) {
    auto origin = dns::Name::from_text(discovery_.origin.ends_with('.') ? discovery_.origin
                                                                        : discovery_.origin + ".");
    const bool taken =
        origin && std::any_of(file_zones_.begin(), file_zones_.end(), [&](const auto& z) {
          return z->origin().lowercased() == origin->lowercased();
        });
    if (taken) {
      errors.push_back({"dns.discovery_zone", 0, 0,
                        origin->to_text() + " is also a zone file's origin; the file wins"});
    } else if (origin) {
      serial_ =
          std::max<std::uint32_t>(serial_ + 1, static_cast<std::uint32_t>(std::time(nullptr)));
      dns::ZoneOptions zo;
      zo.origin = origin.value();
      dns::ZoneLoad z = dns::build_zone(
          origin.value(),
          dns::parse_zone_text(dns::discovery_zone_text(discovery_, serial_, nodes_),
                               "(discovery zone)", zo));
      for (auto& e : z.errors) errors.push_back(std::move(e));
      if (z.zone) {
        zones.push_back(z.zone);
      } else {
        ++failed;
      }
    } else {
      errors.push_back({"dns.discovery_zone", 0, 0, "not a domain name"});
      ++failed;
    }
  }
  for (const auto& e : errors) log::error("zone not loaded", {{"error", e.to_string()}});
  // Zones new or with another serial than last time get a NOTIFY.
  std::vector<std::shared_ptr<const dns::Zone>> changed;
  std::unordered_map<std::string, std::uint32_t> serials;
  for (const auto& z : zones) {
    std::string origin = z->origin().lowercased().to_text();
    std::uint32_t serial = dns::soa_serial(*z);
    auto it = serials_.find(origin);
    if (it == serials_.end() || it->second != serial) changed.push_back(z);
    serials.emplace(std::move(origin), serial);
  }
  serials_ = std::move(serials);
  auto db = std::make_shared<const dns::ZoneDb>(std::move(zones));
  // A node list change rebuilds the discovery zone about once a heartbeat
  // while connections move: logged at debug, not info.
  std::size_t online = 0;
  for (std::size_t i = 0; i < db->size(); ++i) online += db->zone(i).keys() != nullptr ? 1 : 0;
  (files ? log::info : log::debug)("dns zones loaded", {{"zones", db->size()},
                                                        {"failed", failed},
                                                        {"changed", changed.size()},
                                                        {"signed_online", online}});
  LoadReport report{db->size(), failed, changed.size(), std::move(errors)};
  store_.set(std::move(db));
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
  if (notifier_ && !notifier_->empty()) notifier_->notify(std::move(changed));
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
