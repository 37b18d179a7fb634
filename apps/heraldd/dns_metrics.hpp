// heraldd's DNS metrics: what dns::Server and dns::Notifier count, as
// herald_dns_* series of the process's registry (docs/dns.md lists them).
// Each is a callback that reads the server's counters when /metrics is
// scraped, so a query costs the server its own relaxed increments only.
// Kept apart from dns_service.cpp, which wires the server and its reloads.
#pragma once

#include "core/metrics/registry.hpp"
#include "dns/server/notifier.hpp"
#include "dns/server/server.hpp"

namespace herald::heraldd {

// Registers every herald_dns_* series but herald_dns_zones (the service's
// own). `server` and `notifier` must outlive every scrape of `registry`.
void register_dns_metrics(metrics::Registry& registry, dns::Server& server,
                          dns::Notifier& notifier);

}  // namespace herald::heraldd
