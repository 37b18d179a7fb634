// heraldd's [dns] section: the DNS server's settings as configuration
// keys (docs/configuration.md lists them), next to the ServerOptions they
// become, so that a new server option and its key are added in one place.
// Also the section's keys for what heraldd builds around the server: the
// discovery zone (discovery_zone.hpp), NOTIFY targets and huge pages.
#pragma once

#include <boost/asio/ip/udp.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "core/config/schema.hpp"
#include "core/config/values.hpp"
#include "core/result.hpp"
#include "dns/server/options.hpp"
#include "dns/zone.hpp"

namespace herald::dns {

struct Settings {
  bool enabled = false;
  config::Endpoint listen{"127.0.0.1", 5353};
  int threads = 0;
  std::string zones_dir;
  std::string zones;     // "origin=path, origin=path"
  std::string keys_dir;  // K<zone>+<alg>+<tag>.private: those zones are signed online
  std::chrono::milliseconds signature_validity{7LL * 86'400'000};
  std::chrono::milliseconds signature_refresh{86'400'000};
  std::chrono::milliseconds signature_inception_offset{3'600'000};
  int signature_cache_entries = 65536;
  std::chrono::milliseconds tcp_idle_timeout{10'000};
  int max_tcp_connections = 1000;
  int tcp_max_queries = 1000;
  int max_nsec3_iterations = ZoneLimits{}.max_nsec3_iterations;
  std::chrono::milliseconds tcp_lifetime{120'000};
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

void register_settings(config::Schema& schema, Settings& s);

// The server options `s` describes. An error names the key and says what
// is wrong: an unparsable dns.transfer_allow, a dns.cookie_secret that is
// not 32 hex digits. An empty cookie secret draws a random one.
[[nodiscard]] herald::Result<ServerOptions, std::string> server_options(const Settings& s);

// What a zone may ask of the server (dns.max_nsec3_iterations).
ZoneLimits zone_limits(const Settings& s);

// dns.notify's secondaries; an error names the entry that is not an
// address:port.
[[nodiscard]] herald::Result<std::vector<boost::asio::ip::udp::endpoint>, std::string>
notify_targets(const Settings& s);

}  // namespace herald::dns
