// Centrifugo's `override` of a subscription's channel options, which its
// tokens (each entry of a connection token's "subs", a subscription
// token) and its server API's subscribe share: for this one subscription,
// whether the client is listed in the room's presence, whether its joining
// and leaving are announced (join and leave pushes), and whether it is
// sent the room's join and leave pushes. Each is unset unless given, and
// an unset one is the room's (client/subscription_flags.hpp resolves
// them).
//
// Its shape is Centrifugo's: each option an object {"value": boolean} (a
// protobuf BoolValue), so that "value": false can be told from absent;
// {} is false, as Centrifugo reads it. force_recovery and
// force_positioning are read and kept, and change nothing: Herald
// positions and recovers every subscription to a room with history
// (docs/centrifugo.md).
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>

namespace herald::gateway::auth {

struct SubscribeOverride {
  std::optional<bool> presence;         // "presence": listed in presence
  std::optional<bool> join_leave;       // "join_leave": its join and leave announced
  std::optional<bool> push_join_leave;  // "force_push_join_leave": sent join and leave pushes
  std::optional<bool> recovery;         // "force_recovery": no effect here
  std::optional<bool> positioning;      // "force_positioning": no effect here
  bool operator==(const SubscribeOverride&) const = default;
};

// Reads `override` (the field's value) into `out`. Returns what is wrong,
// naming the option ("override.presence: expected {\"value\": boolean}"),
// or nullopt; an option it does not know is refused, as a misspelt one
// would otherwise be ignored without a word.
[[nodiscard]] std::optional<std::string> read_subscribe_override(simdjson::dom::element value,
                                                                 SubscribeOverride& out);

}  // namespace herald::gateway::auth
