// Every setting heraldd accepts, gathered from the modules it runs. The
// struct's initial values are the defaults; register_settings() publishes
// them as configuration keys (see docs/configuration.md).
#pragma once

#include <string>

#include "core/config/schema.hpp"
#include "dns_service.hpp"
#include "gateway/options.hpp"
#include "match/store/settings.hpp"

namespace herald::heraldd {

struct LogSettings {
  std::string level = "info";   // trace, debug, info, warn, error, off
  std::string format = "text";  // text (key=value) or json (one object per line)
};

struct Settings {
  gateway::Options gateway;
  match::store::Settings keywords;
  LogSettings log;
  dns::Settings dns;
};

// Binds every key to a member of `settings`; the schema keeps references, so
// `settings` must outlive it and must not move while it is in use.
void register_settings(config::Schema& schema, Settings& settings);

}  // namespace herald::heraldd
