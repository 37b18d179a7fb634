#include "dns_service.hpp"

#include <boost/asio/ip/address.hpp>
#include <sys/mman.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <stdexcept>
#include <system_error>

#include "core/json.hpp"
#include "core/log.hpp"
#include "dns/notify.hpp"

namespace herald::heraldd {

using std::chrono::milliseconds;

void register_dns_settings(config::Schema& s, DnsSettings& d) {
  s.add_bool("dns.enabled", d.enabled, "Run the authoritative DNS server");
  s.add_endpoint("dns.listen", d.listen, "UDP and TCP address of the DNS server");
  s.add_int("dns.threads", d.threads, 0, 256,
            "DNS shards (a thread, a UDP socket and a TCP acceptor each); 0 is one per core");
  s.add_string("dns.zones_dir", d.zones_dir,
               "Directory of zone files, each named <origin>.zone (other files are skipped)");
  s.add_string("dns.zones", d.zones, "More zones, as a comma-separated list of origin=path");
  s.add_duration("dns.tcp_idle_timeout", d.tcp_idle_timeout, milliseconds(100),
                 milliseconds(3'600'000), "A DNS TCP connection silent this long is closed");
  s.add_int("dns.max_tcp_connections", d.max_tcp_connections, 1, 1'000'000,
            "DNS TCP connections at once; more are closed on accept");
  s.add_int("dns.max_udp_payload", d.max_udp_payload, 512, 4096,
            "Largest UDP response and the EDNS size advertised; clients' sizes are clamped to it");
  s.add_int("dns.max_chain", d.max_chain, 1, 64,
            "CNAME and DNAME steps followed within our zones for one answer");
  s.add_string("dns.nsid", d.nsid, "NSID (RFC 5001) sent to clients that ask; empty sends none",
               128);
  s.add_string("dns.discovery_zone", d.discovery_zone,
               "Zone listing the gateway nodes (SRV, A/AAAA, TXT); empty turns it off", 255);
  s.add_string("dns.node_name", d.node_name, "This node's label in the discovery zone", 63);
  s.add_string("dns.notify", d.notify,
               "Secondaries sent NOTIFY when a zone loads or changes, comma-separated host:port");
  s.add_int("dns.rrl_rate", d.rrl_rate, 0, 1'000'000,
            "Response rate limit: UDP answers per second per client network (IPv4 /24, IPv6 "
            "/56) and shard; 0 is off");
  s.add_int("dns.rrl_slip", d.rrl_slip, 0, 10,
            "Over the rate limit, every this-many-th answer is sent truncated (TC) instead of "
            "dropped; 0 drops them all");
  s.add_bool("dns.cookies", d.cookies,
             "Answer DNS cookies (RFC 7873) with a server cookie (RFC 9018)");
  s.add_bool("dns.require_cookies", d.require_cookies,
             "Over UDP, answer a query whose COOKIE has no valid server cookie with BADCOOKIE "
             "(and a fresh cookie) instead of the answer");
  s.add_string("dns.cookie_secret", d.cookie_secret,
               "Server cookie secret, 32 hex digits, shared by the servers of one address; "
               "empty draws a random one at start",
               32);
  s.add_bool("dns.huge_pages", d.huge_pages,
             "After each zone load, back the heap with transparent huge pages (fewer TLB misses "
             "over many zones)");
  s.add_string("dns.transfer_allow", d.transfer_allow,
               "Addresses and networks that may transfer zones (AXFR, IXFR over TCP), "
               "comma-separated; empty allows no one");
}

std::uint16_t srv_weight(std::uint64_t connections) {
  return static_cast<std::uint16_t>(std::max<std::uint64_t>(1, 10'000 / (1 + connections)));
}

std::string discovery_zone_text(const DnsSettings& s, const config::Endpoint& gateway,
                                std::uint32_t serial,
                                const std::vector<gateway::ClusterNode>& nodes) {
  std::string origin = s.discovery_zone;
  if (!origin.ends_with('.')) origin += '.';
  std::string z = "$ORIGIN " + origin + "\n$TTL 30\n";
  z += "@ SOA ns hostmaster " + std::to_string(serial) + " 3600 600 86400 30\n";
  z += "@ NS ns\n";
  boost::system::error_code ec;
  auto dns_addr = boost::asio::ip::make_address(s.listen.host, ec);
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
  z += "_herald._tcp SRV 0 0 " + std::to_string(gateway.port) + " " + s.node_name + "\n";
  auto gw = boost::asio::ip::make_address(gateway.host, ec);
  if (!ec && !gw.is_unspecified()) {
    z += s.node_name + (gw.is_v4() ? " A " : " AAAA ") + gw.to_string() + "\n";
  }
  z += s.node_name + " TXT \"version=" HERALD_VERSION "\" \"addr=" + gateway.to_string() + "\"\n";
  return z;
}

namespace {

std::string trim(std::string_view v) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  return std::string(v);
}

}  // namespace

DnsService::DnsService(const DnsSettings& settings, config::Endpoint gateway,
                       metrics::Registry& registry)
    : settings_(settings), gateway_(std::move(gateway)) {
  dns::ServerOptions o;
  o.host = settings_.listen.host;
  o.port = settings_.listen.port;
  o.threads = static_cast<unsigned>(settings_.threads);
  o.tcp_idle_timeout = settings_.tcp_idle_timeout;
  o.max_tcp_connections = static_cast<std::size_t>(settings_.max_tcp_connections);
  o.responder.max_udp_payload = static_cast<std::uint16_t>(settings_.max_udp_payload);
  o.responder.max_chain = static_cast<std::size_t>(settings_.max_chain);
  o.responder.nsid.assign(settings_.nsid.begin(), settings_.nsid.end());
  auto acl = dns::AddressAcl::parse(settings_.transfer_allow);
  if (!acl) throw std::runtime_error("dns.transfer_allow: " + acl.error());
  o.transfer_acl = std::move(*acl);
  std::vector<boost::asio::ip::udp::endpoint> secondaries;
  for (std::string_view item : config::split_list(settings_.notify)) {
    auto ep = config::parse_endpoint(item);
    boost::system::error_code ec;
    auto addr = ep ? boost::asio::ip::make_address(ep->host, ec) : boost::asio::ip::address();
    if (!ep || ec || ep->port == 0) {
      throw std::runtime_error("dns.notify: '" + std::string(item) + "' is not an address:port");
    }
    secondaries.emplace_back(addr, ep->port);
  }
  notifier_ = std::make_unique<dns::Notifier>(std::move(secondaries));
  o.responder.cookies = settings_.cookies;
  o.responder.require_cookies = settings_.require_cookies;
  o.rrl_rate = static_cast<std::uint32_t>(settings_.rrl_rate);
  o.rrl_slip = static_cast<std::uint32_t>(settings_.rrl_slip);
  if (settings_.cookie_secret.empty()) {
    std::random_device rd;  // the OS's entropy source
    for (auto& b : o.responder.cookie_secret) b = static_cast<std::uint8_t>(rd());
  } else {
    std::vector<std::uint8_t> bytes;
    bool hex = settings_.cookie_secret.size() == 32;
    for (std::size_t i = 0; hex && i < 32; i += 2) {
      auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      int hi = digit(settings_.cookie_secret[i]), lo = digit(settings_.cookie_secret[i + 1]);
      if (hi < 0 || lo < 0) hex = false;
      bytes.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
    }
    if (!hex) throw std::runtime_error("dns.cookie_secret: expected 32 hex digits");
    std::copy(bytes.begin(), bytes.end(), o.responder.cookie_secret.begin());
  }
  server_ = std::make_unique<dns::Server>(o, store_);
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

HugePages back_heap_with_huge_pages() {
  HugePages out;
  std::ifstream maps("/proc/self/smaps");
  if (!maps) {
    out.error = "no /proc/self/smaps";
    return out;
  }
  // The heap may be several mappings (an earlier advice split it), back to
  // back: from the first one's start to the last one's end.
  std::string line;
  std::uintptr_t lo = 0, hi = 0;
  while (std::getline(maps, line)) {
    std::uintptr_t a = 0, b = 0;
    if (line.ends_with("[heap]") &&
        std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &a, &b) == 2) {
      if (lo == 0) lo = a;
      hi = b;
    }
  }
  if (hi <= lo) {
    out.error = "no [heap] mapping";
    return out;
  }
  // Whole 2 MiB pages inside the mapping only (madvise wants page-aligned
  // ranges; a huge page cannot straddle the mapping's ends).
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  std::uintptr_t a = (lo + kHuge - 1) & ~(kHuge - 1);
  std::uintptr_t b = hi & ~(kHuge - 1);
  if (b <= a) {
    out.error = "heap smaller than a huge page";
    return out;
  }
  // Safety: the range lies inside this process's own [heap] mapping, and
  // both advices only change how it is backed, never its contents.
  void* start = reinterpret_cast<void*>(a);
  if (::madvise(start, b - a, MADV_HUGEPAGE) != 0) {
    out.error = "madvise(MADV_HUGEPAGE): " + std::generic_category().message(errno);
    return out;
  }
#ifndef MADV_COLLAPSE
  constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; older C library headers lack it
#endif
  if (::madvise(start, b - a, MADV_COLLAPSE) != 0 && errno != EAGAIN) {
    // EAGAIN: some pages could not be collapsed now (memory pressure); the
    // advice stands and khugepaged finishes later. Other errors: say so.
    out.error = "madvise(MADV_COLLAPSE): " + std::generic_category().message(errno);
  }
  // What the heap holds in huge pages now.
  std::ifstream again("/proc/self/smaps");
  bool in_heap = false;
  while (std::getline(again, line)) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find('-') != std::string::npos) {
      in_heap = line.ends_with("[heap]");
    } else if (in_heap && line.starts_with("AnonHugePages:")) {
      out.kib += std::strtoull(line.c_str() + 14, nullptr, 10);
    }
  }
  return out;
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

void DnsService::set_nodes(std::vector<gateway::ClusterNode> nodes) {
  std::lock_guard lock(mu_);
  nodes_ = std::move(nodes);
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
  dns::DbLoad load = dns::load_zones(sources);
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
  if (!settings_.discovery_zone.empty()) {
    auto origin = dns::Name::from_text(settings_.discovery_zone.ends_with('.')
                                           ? settings_.discovery_zone
                                           : settings_.discovery_zone + ".");
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
          dns::parse_zone_text(discovery_zone_text(settings_, gateway_, serial_, nodes_),
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
  (files ? log::info : log::debug)(
      "dns zones loaded", {{"zones", db->size()}, {"failed", failed}, {"changed", changed.size()}});
  LoadReport report{db->size(), failed, changed.size(), std::move(errors)};
  store_.set(std::move(db));
  if (settings_.huge_pages && files) {
    // A query touches a dozen scattered cache lines of a zone; over
    // thousands of zones each is a TLB miss with 4 KiB pages. Measured on
    // D1 (bench_dns_d1, 20,000 zones): 20-30% less CPU per answer with the
    // heap in huge pages (docs/benchmarks.md).
    HugePages hp = back_heap_with_huge_pages();
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
