#include "gateway/protocol/room_name.hpp"

namespace herald::gateway::protocol {

std::optional<std::string> room_name_error(std::string_view room) {
  if (room.empty()) return "room name is empty";
  if (room.size() > kMaxRoomNameBytes) {
    return "room name is " + std::to_string(room.size()) + " bytes; the limit is " +
           std::to_string(kMaxRoomNameBytes);
  }
  const std::string_view name = is_private_room(room) ? room.substr(1) : room;
  if (name.empty()) return "room name is only the private mark '$'";
  if (name.front() == ':') return "room name has an empty namespace before ':'";
  const std::size_t users = room.rfind('#');
  for (std::size_t i = 0; i < room.size(); ++i) {
    char c = room[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    for (char allowed : std::string_view("_-.:@/=+~!#,$")) ok = ok || c == allowed;
    if (!ok) {
      return "room name has a character that is not allowed at byte " + std::to_string(i) +
             " (allowed: letters, digits and _-.:@/=+~!#,$)";
    }
    if (c == '$' && i != 0) {
      return "room name has '$' at byte " + std::to_string(i) +
             "; '$' only begins a name (a private room)";
    }
    if (c == ',' && (users == std::string_view::npos || i < users)) {
      return "room name has ',' at byte " + std::to_string(i) +
             "; ',' only separates the users after '#' (a user-limited room)";
    }
  }
  return std::nullopt;
}

std::string_view room_namespace(std::string_view room) {
  if (is_private_room(room)) room.remove_prefix(1);
  auto colon = room.find(':');
  return colon == std::string_view::npos ? std::string_view() : room.substr(0, colon);
}

bool room_admits_user(std::string_view room, std::string_view user) {
  const std::size_t mark = room.rfind('#');
  if (mark == std::string_view::npos) return true;
  std::string_view users = room.substr(mark + 1);
  while (true) {
    const std::size_t comma = users.find(',');
    if (users.substr(0, comma) == user) return true;
    if (comma == std::string_view::npos) return false;
    users.remove_prefix(comma + 1);
  }
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
