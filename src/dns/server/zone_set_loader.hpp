// The set of zones heraldd serves, as its [dns] settings (settings.hpp)
// describe it: the zone files (a directory and a list, zone_list.hpp), the
// keys that make some of them signed online (signing/key_directory.hpp),
// and the discovery zone of gateway nodes (discovery_zone.hpp). The shape is
// Knot's zonedb load: every (re)load builds a whole new database from the
// configuration, the refusals of each part are collected rather than
// thrown, and the caller swaps the result in at once; a part that fails
// costs its own zones only.
//
// Rules kept here, so that every daemon serving these settings keeps them:
// - A keys directory that cannot be read reloads nothing: which zones are
//   signed online is then unknown, and serving one of them unsigned would
//   be bogus to every validator that has its DS. The zones loaded before
//   are kept (none at the first load).
// - The discovery zone never shadows a zone file: a file with the same
//   origin wins, and the clash is reported.
// - The discovery zone's serial moves forward on every rebuild, at least
//   to the clock's seconds (so a restart does not go back), else by one (so
//   two rebuilds in one second still differ, and secondaries see both).
// - Zones new or with another serial than the last load's are listed for
//   NOTIFY (serial_changes.hpp).
//
// Not thread-safe: the caller serializes load_files() and set_nodes().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "dns/name.hpp"
#include "dns/server/discovery_zone.hpp"
#include "dns/server/serial_changes.hpp"
#include "dns/server/settings.hpp"
#include "dns/zone.hpp"
#include "dns/zone_db.hpp"
#include "dns/zone_parser.hpp"

namespace herald::dns {

// What one load did, for the caller to swap in, log and NOTIFY.
struct ZoneSetUpdate {
  std::shared_ptr<const ZoneDb> db;                  // every zone to serve now
  std::size_t failed = 0;                            // zones left out
  std::vector<ZoneError> errors;                     // why, file:line for a zone file
  std::vector<std::shared_ptr<const Zone>> changed;  // new or another serial: NOTIFY these
  std::vector<Name> unused_keys;  // zones with keys in dns.keys_dir that no source serves
};

class ZoneSetLoader {
 public:
  // Seconds since the epoch, for the discovery zone's serial.
  using Clock = std::function<std::uint32_t()>;
  static std::uint32_t unix_seconds();

  ZoneSetLoader(Settings settings, DiscoveryZone discovery, Clock now = unix_seconds);

  // Reads the zone files and keys again and rebuilds the discovery zone.
  ZoneSetUpdate load_files();
  // The live gateway nodes changed (empty: this node alone): rebuilds the
  // discovery zone beside the zone files last loaded, which are not read
  // again.
  ZoneSetUpdate set_nodes(std::vector<GatewayNode> nodes);

 private:
  // The file zones last loaded plus the discovery zone, with `errors`.
  ZoneSetUpdate assemble(std::vector<ZoneError> errors);

  Settings settings_;
  DiscoveryZone discovery_;
  Clock now_;
  std::vector<std::shared_ptr<const Zone>> file_zones_;
  std::size_t file_failed_ = 0;
  std::vector<GatewayNode> nodes_;
  std::uint32_t discovery_serial_ = 0;
  SerialChanges serials_;
};

}  // namespace herald::dns
