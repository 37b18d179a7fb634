// Room names: "name" or "namespace:name". The namespace (before the first
// ':') selects the room's options ([namespaces.NAME] in the configuration).
// Two marks in a name, Centrifugo's channel conventions, so that its
// clients' channels mean the same here:
//   - a leading '$' makes the room private: it is subscribed to only with
//     a subscription token naming it, and used (history, presence,
//     publish) only through that subscription. "$chat:x" is in namespace
//     "chat".
//   - '#' limits the room to users: the part after the last '#' lists them,
//     ','-separated ("dialog#42,43" is for users 42 and 43 only).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace herald::gateway::protocol {

inline constexpr std::size_t kMaxRoomNameBytes = 255;

// nullopt if `room` is a valid name, else what is wrong with it. Valid: 1 to
// 255 bytes of ASCII letters, digits and _ - . : @ / = + ~ ! # , $ ; a
// namespace, when present, is not empty; '$' only first, ',' only in the
// users after a '#'. (No byte of a Redis glob or hash tag, a space or a
// line break: names go into Redis keys and channels as they are.)
[[nodiscard]] std::optional<std::string> room_name_error(std::string_view room);

// "chat" for "chat:lobby" and "$chat:lobby"; "" for a room without a
// namespace.
[[nodiscard]] std::string_view room_namespace(std::string_view room);

// Whether `room` is private (a leading '$').
[[nodiscard]] inline bool is_private_room(std::string_view room) {
  return room.starts_with('$');
}

// Whether `user` may use `room`: always, unless the room is user-limited
// ('#'), when only the users it lists may.
[[nodiscard]] bool room_admits_user(std::string_view room, std::string_view user);

// Token room patterns: "*" matches every room, "ns:*" every room of the
// namespace, anything else exactly itself.
[[nodiscard]] bool room_matches(std::string_view pattern, std::string_view room);

}  // namespace herald::gateway::protocol
