// dns.zones: zones listed one by one as "origin=path, origin=path", beside
// (or instead of) a directory of "<origin>.zone" files (zone_db.hpp's
// zone_directory). A list entry names its origin because its path need
// not: a zone kept under any name, anywhere, can be served.
#pragma once

#include <string_view>
#include <vector>

#include "dns/zone_db.hpp"
#include "dns/zone_parser.hpp"

namespace herald::dns {

// The sources `list` names, in its order. Blanks around origins and paths
// are dropped; an origin may omit its final dot (the root is "."). An
// entry without '=', without an origin or a path, or whose origin is not a
// domain name is left out and reported as an error of "dns.zones" that
// quotes it ("expected origin=path, got 'x'"); the
// other entries still load.
[[nodiscard]] std::vector<ZoneSource> parse_zone_list(std::string_view list,
                                                      std::vector<ZoneError>& errors);

}  // namespace herald::dns
