#include "dns/server/zone_list.hpp"

#include <string>

#include "core/config/values.hpp"
#include "core/text.hpp"

namespace herald::dns {

std::vector<ZoneSource> parse_zone_list(std::string_view list, std::vector<ZoneError>& errors) {
  std::vector<ZoneSource> sources;
  for (std::string_view item : config::split_list(list)) {
    const std::size_t eq = item.find('=');
    // An empty origin is a slip, not the root: the root is written "."
    // (from_text refuses an empty name). Relative to the root: the final
    // dot may be left out.
    const Name root;
    auto origin = Name::from_text(trim(item.substr(0, eq)), &root);
    const std::string_view path = eq == std::string_view::npos ? "" : trim(item.substr(eq + 1));
    if (eq == std::string_view::npos || !origin || path.empty()) {
      errors.push_back(
          {"dns.zones", 0, 0, "expected origin=path, got '" + std::string(item) + "'"});
      continue;
    }
    sources.push_back({origin.value(), std::string(path)});
  }
  return sources;
}

}  // namespace herald::dns
