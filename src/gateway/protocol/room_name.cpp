#include "gateway/protocol/room_name.hpp"

namespace herald::gateway::protocol {

std::optional<std::string> room_name_error(std::string_view room) {
  if (room.empty()) return "room name is empty";
  if (room.size() > kMaxRoomNameBytes) {
    return "room name is " + std::to_string(room.size()) + " bytes; the limit is " +
           std::to_string(kMaxRoomNameBytes);
  }
  if (room.front() == ':') return "room name has an empty namespace before ':'";
  for (std::size_t i = 0; i < room.size(); ++i) {
    char c = room[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    for (char allowed : std::string_view("_-.:@/=+~!")) ok = ok || c == allowed;
    if (!ok) {
      return "room name has a character that is not allowed at byte " + std::to_string(i) +
             " (allowed: letters, digits and _-.:@/=+~!)";
    }
  }
  return std::nullopt;
}

std::string_view room_namespace(std::string_view room) {
  auto colon = room.find(':');
  return colon == std::string_view::npos ? std::string_view() : room.substr(0, colon);
}

bool room_matches(std::string_view pattern, std::string_view room) {
  if (pattern == "*") return true;
  if (pattern.size() >= 2 && pattern.ends_with(":*")) {
    return room.size() > pattern.size() - 1 &&
           room.starts_with(pattern.substr(0, pattern.size() - 1));
  }
  return pattern == room;
}

}  // namespace herald::gateway::protocol
