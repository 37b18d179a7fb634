// A room's notification mode has three spellings: the store's
// (state::NotifyMode, a byte of the kept record), the room list engine's
// (live::NotifyMode, which decides an item's notification count) and the
// wire's ("all", "mentions", "mute": protocol::notify_mode_name). The
// first two are converted here, once, so the API's `user_rooms` and the
// room list name a kept mode the same way.
#pragma once

#include "live/room_list/item.hpp"
#include "state/membership.hpp"

namespace herald::gateway::membership {

[[nodiscard]] constexpr live::NotifyMode live_notify_mode(state::NotifyMode mode) {
  switch (mode) {
    case state::NotifyMode::all:
      return live::NotifyMode::all;
    case state::NotifyMode::mentions:
      return live::NotifyMode::mentions_only;
    case state::NotifyMode::mute:
      return live::NotifyMode::mute;
  }
  return live::NotifyMode::all;
}

[[nodiscard]] constexpr state::NotifyMode kept_notify_mode(live::NotifyMode mode) {
  switch (mode) {
    case live::NotifyMode::all:
      return state::NotifyMode::all;
    case live::NotifyMode::mentions_only:
      return state::NotifyMode::mentions;
    case live::NotifyMode::mute:
      return state::NotifyMode::mute;
  }
  return state::NotifyMode::all;
}

}  // namespace herald::gateway::membership
