#include "settings.hpp"

namespace herald::heraldd {

void register_settings(config::Schema& schema, Settings& s) {
  gateway::register_options(schema, s.gateway);
  match::store::register_settings(schema, s.keywords);
  schema.add_choice("log.level", s.log.level, {"trace", "debug", "info", "warn", "error", "off"},
                    "Least severe log level written");
  schema.add_choice("log.format", s.log.format, {"text", "json"},
                    "Log line format: text (key=value) or json (one object per line)");
  dns::register_settings(schema, s.dns);
}

}  // namespace herald::heraldd
