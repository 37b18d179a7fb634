// What one subscription does in its room's presence, decided once when it
// is made: the room's options (RoomOptions presence and join_leave), as a
// Centrifugo override (auth/subscribe_override.hpp) and the client's own
// join_leave ask them to be changed for it.
//
// Centrifugo splits what Herald's join_leave does in one: announcing a
// client's joining and leaving, and sending those pushes to a client. A
// subscription is announced where the room announces (join_leave), unless
// the override says otherwise. It is sent the pushes where the room
// announces and the client asked for them: a client of Herald's protocol
// cannot ask and gets them, one of Centrifugo's that did not set joinLeave
// is spared them (Centrifugo sends them only to a client that asked, or
// where the channel forces them, which is the override's
// force_push_join_leave here). The broker keeps a presence entry only for
// a listed subscription, and pushes a join and a leave only for an
// announced one; the client drops the pushes it is not to be sent.
#pragma once

#include <optional>

#include "gateway/auth/subscribe_override.hpp"
#include "gateway/options.hpp"

namespace herald::gateway::client {

struct SubscriptionFlags {
  bool listed = false;            // in the room's presence
  bool announced = false;         // its subscribe and unsubscribe pushed as join and leave
  bool hears_join_leave = false;  // sent the room's join and leave pushes
};

[[nodiscard]] inline SubscriptionFlags subscription_flags(const RoomOptions& room,
                                                          const auth::SubscribeOverride& override,
                                                          std::optional<bool> asked_join_leave) {
  return {override.presence.value_or(room.presence), override.join_leave.value_or(room.join_leave),
          override.push_join_leave.value_or(room.join_leave && asked_join_leave.value_or(true))};
}

}  // namespace herald::gateway::client
