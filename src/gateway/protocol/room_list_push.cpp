#include "gateway/protocol/room_list_push.hpp"

#include "core/json.hpp"

namespace herald::gateway::protocol {

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
  out += ",\"favourite\":";
  out += row.favourite ? "true" : "false";
  out += ",\"low_priority\":";
  out += row.low_priority ? "true" : "false";
  out += '}';
}

}  // namespace herald::gateway::protocol
