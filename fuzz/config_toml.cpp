// Fuzz target: heraldd's configuration file. Any byte string is parsed as
// TOML and applied to the full heraldd schema. It must never crash, hang or
// leak, and every rejection must come as an error that names where.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/config/schema.hpp"
#include "settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  herald::heraldd::Settings settings;
  herald::config::Schema schema;
  herald::heraldd::register_settings(schema, settings);
  // Safety: the fuzzer's bytes viewed as chars of the same size, read as
  // text; no layout is assumed.
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto errors = herald::config::apply_toml(schema, text, "fuzz.toml");
  for (const auto& e : errors) {
    if (e.message.empty() || e.origin.name != "fuzz.toml") std::abort();
  }
  return 0;
}
