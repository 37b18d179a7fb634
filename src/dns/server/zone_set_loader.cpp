#include "dns/server/zone_set_loader.hpp"

#include <algorithm>
#include <ctime>
#include <utility>

#include "dns/server/zone_list.hpp"
#include "dns/signing/key_directory.hpp"

namespace herald::dns {

std::uint32_t ZoneSetLoader::unix_seconds() {
  // Safety: a SOA serial is 32 bits (RFC 1035); the seconds fit until 2106,
  // and RFC 1982 arithmetic takes the wrap after that.
  return static_cast<std::uint32_t>(std::time(nullptr));
}

ZoneSetLoader::ZoneSetLoader(Settings settings, DiscoveryZone discovery, Clock now)
    : settings_(std::move(settings)), discovery_(std::move(discovery)), now_(std::move(now)) {}

ZoneSetUpdate ZoneSetLoader::load_files() {
  std::vector<ZoneError> errors;
  std::vector<ZoneSource> sources;
  if (!settings_.zones_dir.empty()) sources = zone_directory(settings_.zones_dir, errors);
  for (ZoneSource& s : parse_zone_list(settings_.zones, errors)) sources.push_back(std::move(s));
  std::vector<Name> unused_keys;
  std::size_t key_failed = 0;
  if (!settings_.keys_dir.empty()) {
    // Read again on every load: a key change is a reload.
    signing::KeyDirectory keys = signing::KeyDirectory::scan(settings_.keys_dir, errors);
    if (!keys.readable()) {
      errors.push_back({settings_.keys_dir, 0, 0,
                        "no zone reloaded: without the keys directory, zones signed online would "
                        "be served unsigned; the zones loaded before are kept"});
      return assemble(std::move(errors));
    }
    unused_keys = keys.unserved(sources);
    key_failed = signing::attach_keys(keys, sources, errors);
  }
  DbLoad load = load_zones(sources, zone_limits(settings_));
  std::vector<std::shared_ptr<const Zone>> zones;
  if (load.db) {
    zones.reserve(load.db->size());
    for (std::size_t i = 0; i < load.db->size(); ++i) {
      // Aliasing pointers into the loaded database: adding the discovery
      // zone rebuilds the index only, never the zones.
      zones.push_back(std::shared_ptr<const Zone>(load.db, &load.db->zone(i)));
    }
  }
  for (ZoneError& e : load.errors) errors.push_back(std::move(e));
  file_zones_ = std::move(zones);
  file_failed_ = load.failed + key_failed;
  ZoneSetUpdate update = assemble(std::move(errors));
  update.unused_keys = std::move(unused_keys);
  return update;
}

ZoneSetUpdate ZoneSetLoader::set_nodes(std::vector<GatewayNode> nodes) {
  nodes_ = std::move(nodes);
  return assemble({});
}

ZoneSetUpdate ZoneSetLoader::assemble(std::vector<ZoneError> errors) {
  std::vector<std::shared_ptr<const Zone>> zones = file_zones_;
  std::size_t failed = file_failed_;
  if (!discovery_.origin.empty()) {
    const Name root;  // the final dot may be left out
    auto origin = Name::from_text(discovery_.origin, &root);
    if (!origin) {
      errors.push_back({"dns.discovery_zone", 0, 0, "not a domain name"});
      ++failed;
    } else if (std::any_of(file_zones_.begin(), file_zones_.end(), [&](const auto& z) {
                 return z->origin().lowercased() == origin->lowercased();
               })) {
      errors.push_back({"dns.discovery_zone", 0, 0,
                        origin->to_text() + " is also a zone file's origin; the file wins"});
    } else {
      discovery_serial_ = std::max(discovery_serial_ + 1, now_());
      ZoneOptions zo;
      zo.origin = origin.value();
      ZoneLoad z =
          build_zone(origin.value(),
                     parse_zone_text(discovery_zone_text(discovery_, discovery_serial_, nodes_),
                                     "(discovery zone)", zo));
      for (ZoneError& e : z.errors) errors.push_back(std::move(e));
      if (z.zone) {
        zones.push_back(std::move(z.zone));
      } else {
        ++failed;
      }
    }
  }
  ZoneSetUpdate update;
  update.changed = serials_.update(zones);
  update.db = std::make_shared<const ZoneDb>(std::move(zones));
  update.failed = failed;
  update.errors = std::move(errors);
  return update;
}

}  // namespace herald::dns
