// Which zones a load changed, for NOTIFY (RFC 1996): a secondary is told of
// a zone when it is new or its SOA serial differs from the last load's.
// "Differs", not "grew": a serial rolled back by an operator is a change the
// secondaries must hear of too (they decide, by RFC 1982 arithmetic,
// whether to transfer). Zones that left the set are forgotten, so one that
// comes back is new again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dns/zone.hpp"

namespace herald::dns {

class SerialChanges {
 public:
  // The zones of `zones` new or with another serial than in the previous
  // call, in `zones`' order; remembers `zones`' serials for the next call.
  // Origins compare without case.
  std::vector<std::shared_ptr<const Zone>> update(
      const std::vector<std::shared_ptr<const Zone>>& zones);

 private:
  std::unordered_map<std::string, std::uint32_t> serials_;  // lower-cased origin -> serial
};

}  // namespace herald::dns
