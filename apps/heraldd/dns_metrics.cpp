#include "dns_metrics.hpp"

#include <string>
#include <utility>

#include "dns/notify.hpp"

namespace herald::heraldd {

void register_dns_metrics(metrics::Registry& registry, dns::Server& server,
                          dns::Notifier& notifier) {
  dns::Server* srv = &server;
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
  dns::Notifier* n = &notifier;
  registry.callback(
      "herald_dns_notify_sent_total", "NOTIFY messages sent (retransmissions included)",
      [n] { return static_cast<double>(n->sent()); }, true);
  registry.callback(
      "herald_dns_notify_acked_total", "NOTIFY messages a secondary answered",
      [n] { return static_cast<double>(n->acknowledged()); }, true);
  registry.callback(
      "herald_dns_notify_failed_total", "NOTIFY messages never answered after every retry",
      [n] { return static_cast<double>(n->failed()); }, true);
}

}  // namespace herald::heraldd
