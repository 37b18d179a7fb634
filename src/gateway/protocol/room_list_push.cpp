#include "gateway/protocol/room_list_push.hpp"

#include "core/json.hpp"

namespace herald::gateway::protocol {

std::string_view notify_mode_name(live::NotifyMode mode) {
  switch (mode) {
    case live::NotifyMode::all:
      return "all";
    case live::NotifyMode::mentions_only:
      return "mentions";
    case live::NotifyMode::mute:
      return "mute";
  }
  return "all";
}

std::optional<live::NotifyMode> notify_mode_named(std::string_view name) {
  for (const live::NotifyMode m :
       {live::NotifyMode::all, live::NotifyMode::mentions_only, live::NotifyMode::mute}) {
    if (notify_mode_name(m) == name) return m;
  }
  return std::nullopt;
}

void append_room_row(std::string& out, const RoomRow& row) {
  out += "{\"room\":";
  json::append_string(out, row.room);
  out += ",\"name\":";
  json::append_string(out, row.name);
  out += ",\"preview\":";
  json::append_string(out, row.preview);
  out += ",\"sender\":";
  json::append_string(out, row.sender);
  out += ",\"time\":" + std::to_string(row.time_ms);
  out += ",\"unread\":" + std::to_string(row.unread);
  out += ",\"mentions\":" + std::to_string(row.mentions);
  out += ",\"notifications\":" + std::to_string(row.notifications);
  out += ",\"favourite\":";
  out += row.favourite ? "true" : "false";
  out += ",\"low_priority\":";
  out += row.low_priority ? "true" : "false";
  out += ",\"marked_unread\":";
  out += row.marked_unread ? "true" : "false";
  out += ",\"notify\":\"";
  out += notify_mode_name(row.notify);
  out += "\",\"direct\":";
  out += row.direct ? "true" : "false";
  out += ",\"membership\":";
  out += row.invited ? "\"invited\"" : "\"joined\"";
  out += '}';
}

}  // namespace herald::gateway::protocol
