// Room names: "name" or "namespace:name". The namespace (before the first
// ':') selects the room's options ([namespaces.NAME] in the configuration).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace herald::gateway::protocol {

inline constexpr std::size_t kMaxRoomNameBytes = 255;

// nullopt if `room` is a valid name, else what is wrong with it. Valid: 1 to
// 255 bytes of ASCII letters, digits and _ - . : @ / = + ~ ! ; a namespace,
// when present, is not empty.
[[nodiscard]] std::optional<std::string> room_name_error(std::string_view room);

// "chat" for "chat:lobby"; "" for a room without a namespace.
[[nodiscard]] std::string_view room_namespace(std::string_view room);

// Token room patterns: "*" matches every room, "ns:*" every room of the
// namespace, anything else exactly itself.
[[nodiscard]] bool room_matches(std::string_view pattern, std::string_view room);

}  // namespace herald::gateway::protocol
