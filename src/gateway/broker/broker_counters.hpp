// The counters every broker keeps, under the same names and help, so that
// /metrics reads the same whichever broker (memory or Redis) runs.
#pragma once

#include "core/metrics/registry.hpp"

namespace herald::gateway::broker {

struct BrokerCounters {
  explicit BrokerCounters(metrics::Registry& registry)
      : publications(registry.counter("herald_publications_total", "Publications accepted")),
        recovered(registry.counter("herald_recoveries_total",
                                   "Subscribes with a since position, by outcome",
                                   {{"outcome", "recovered"}})),
        not_recovered(registry.counter("herald_recoveries_total",
                                       "Subscribes with a since position, by outcome",
                                       {{"outcome", "not_recovered"}})),
        join_leave_dropped(registry.counter(
            "herald_join_leave_dropped_total",
            "join and leave pushes not sent: over their room's join_leave_rate")) {}
  metrics::Counter& publications;
  metrics::Counter& recovered;
  metrics::Counter& not_recovered;
  metrics::Counter& join_leave_dropped;
};

}  // namespace herald::gateway::broker
