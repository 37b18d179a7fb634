#include "dns/server/settings.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>

#include "core/random.hpp"
#include "dns/detail/text_codecs.hpp"

namespace herald::dns {

using std::chrono::milliseconds;

void register_settings(config::Schema& s, Settings& d) {
  s.add_bool("dns.enabled", d.enabled, "Run the authoritative DNS server");
  s.add_endpoint("dns.listen", d.listen, "UDP and TCP address of the DNS server");
  s.add_int("dns.threads", d.threads, 0, 256,
            "DNS shards (a thread, a UDP socket and a TCP acceptor each); 0 is one per core");
  s.add_string("dns.zones_dir", d.zones_dir,
               "Directory of zone files, each named <origin>.zone (other files are skipped)");
  s.add_string("dns.zones", d.zones, "More zones, as a comma-separated list of origin=path");
  s.add_string("dns.keys_dir", d.keys_dir,
               "Directory of DNSSEC keys (K<zone>+<alg>+<tag>.private and .key, as ldns-keygen "
               "writes them); a zone with keys here is signed online, at query time");
  s.add_duration("dns.signature_validity", d.signature_validity, milliseconds(3'600'000),
                 milliseconds(90LL * 86'400'000),
                 "Online signing: a signature expires this long after it is made");
  s.add_duration("dns.signature_refresh", d.signature_refresh, milliseconds(60'000),
                 milliseconds(89LL * 86'400'000),
                 "Online signing: a cached signature with less validity left is made anew (keep "
                 "it above the zones' largest TTL); less than dns.signature_validity");
  s.add_duration("dns.signature_inception_offset", d.signature_inception_offset, milliseconds(0),
                 milliseconds(86'400'000),
                 "Online signing: a signature is valid from this long before it is made (clock "
                 "skew)");
  s.add_int("dns.signature_cache_entries", d.signature_cache_entries, 0, 16'777'216,
            "Online signing: RRsets whose signatures each shard keeps (about 176 octets each, "
            "made at the first signature); 0 signs every answer afresh");
  s.add_duration("dns.tcp_idle_timeout", d.tcp_idle_timeout, milliseconds(100),
                 milliseconds(3'600'000), "A DNS TCP connection silent this long is closed");
  s.add_int("dns.max_tcp_connections", d.max_tcp_connections, 1, 1'000'000,
            "DNS TCP connections at once; more are closed on accept");
  s.add_int("dns.tcp_max_queries", d.tcp_max_queries, 1, 1'000'000,
            "A DNS TCP connection is closed after answering this many queries");
  s.add_duration("dns.tcp_lifetime", d.tcp_lifetime, milliseconds(1'000), milliseconds(86'400'000),
                 "A DNS TCP connection this old is closed after its current answer");
  s.add_int("dns.max_nsec3_iterations", d.max_nsec3_iterations, 0, 2500,
            "A zone whose NSEC3 records ask more hash iterations is refused at load (RFC 9276 "
            "asks for 0)");
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

ZoneLimits zone_limits(const Settings& s) {
  ZoneLimits l;
  // Safety: register_settings bounds it to 0..2500, which a uint16_t holds.
  l.max_nsec3_iterations = static_cast<std::uint16_t>(s.max_nsec3_iterations);
  return l;
}

herald::Result<ServerOptions, std::string> server_options(const Settings& s) {
  ServerOptions o;
  o.host = s.listen.host;
  o.port = s.listen.port;
  // Safety: register_settings bounds each of these (0..256 threads,
  // 1..1,000,000 connections and queries per connection, 512..4096 octets, 1..64 steps,
  // 0..1,000,000 per second, 0..10): all fit their targets and none is negative.
  o.threads = static_cast<unsigned>(s.threads);
  o.tcp_idle_timeout = s.tcp_idle_timeout;
  o.max_tcp_connections = static_cast<std::size_t>(s.max_tcp_connections);
  o.tcp_max_queries = static_cast<std::size_t>(s.tcp_max_queries);
  o.tcp_lifetime = s.tcp_lifetime;
  o.responder.max_udp_payload = static_cast<std::uint16_t>(s.max_udp_payload);
  o.responder.max_chain = static_cast<std::size_t>(s.max_chain);
  o.rrl_rate = static_cast<std::uint32_t>(s.rrl_rate);
  o.rrl_slip = static_cast<std::uint32_t>(s.rrl_slip);
  o.responder.nsid.assign(s.nsid.begin(), s.nsid.end());
  auto acl = AddressAcl::parse(s.transfer_allow);
  if (!acl) return "dns.transfer_allow: " + acl.error();
  o.transfer_acl = std::move(*acl);
  if (s.signature_refresh >= s.signature_validity) {
    return std::string(
        "dns.signature_refresh must be less than dns.signature_validity (a signature would be "
        "renewed as soon as it is made)");
  }
  // Safety: the settings are bounded to at most 90 days in milliseconds;
  // in seconds that is under 2^23.
  o.responder.signatures.validity = static_cast<std::uint32_t>(s.signature_validity.count() / 1000);
  o.responder.signatures.refresh = static_cast<std::uint32_t>(s.signature_refresh.count() / 1000);
  o.responder.signatures.inception_offset =
      static_cast<std::uint32_t>(s.signature_inception_offset.count() / 1000);
  // Safety: bounded to 0..16,777,216 by register_settings.
  o.responder.signatures.cache_entries = static_cast<std::size_t>(s.signature_cache_entries);
  o.responder.cookies = s.cookies;
  o.responder.require_cookies = s.require_cookies;
  if (s.cookie_secret.empty()) {
    random::fill_entropy(o.responder.cookie_secret);
  } else {
    std::vector<std::uint8_t> bytes;
    if (s.cookie_secret.size() != 32 || !detail::hex_decode(s.cookie_secret, bytes) ||
        bytes.size() != o.responder.cookie_secret.size()) {
      return std::string("dns.cookie_secret: expected 32 hex digits");
    }
    std::copy(bytes.begin(), bytes.end(), o.responder.cookie_secret.begin());
  }
  return o;
}

herald::Result<std::vector<boost::asio::ip::udp::endpoint>, std::string> notify_targets(
    const Settings& s) {
  std::vector<boost::asio::ip::udp::endpoint> out;
  for (std::string_view item : config::split_list(s.notify)) {
    auto ep = config::parse_endpoint(item);
    boost::system::error_code ec;
    auto addr = ep ? boost::asio::ip::make_address(ep->host, ec) : boost::asio::ip::address();
    if (!ep || ec || ep->port == 0) {
      return "dns.notify: '" + std::string(item) + "' is not an address:port";
    }
    out.emplace_back(addr, ep->port);
  }
  return out;
}

}  // namespace herald::dns
