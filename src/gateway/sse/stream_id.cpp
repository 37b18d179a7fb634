#include "gateway/sse/stream_id.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "gateway/protocol/room_name.hpp"

namespace herald::gateway::sse {
namespace {

bool is_epoch_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '-';
}

// The room as an id writes it: '#' and ',' escaped (the header).
void append_room(std::string& out, std::string_view room) {
  for (char c : room) {
    if (c == '#') {
      out += "%23";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
}

// The room an id names, its two escapes read back; nullopt for any other
// '%' (no room name has one).
std::optional<std::string> read_room(std::string_view written) {
  std::string room;
  room.reserve(written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (written[i] != '%') {
      room += written[i];
      continue;
    }
    const std::string_view code = written.substr(i + 1, 2);
    if (code == "23") {
      room += '#';
    } else if (code == "2C" || code == "2c") {
      room += ',';
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  return room;
}

}  // namespace

std::string format_stream_id(const protocol::RoomPositions& positions) {
  std::string out;
  for (const auto& [room, position] : positions) {
    if (!out.empty()) out += ',';
    append_room(out, room);
    out += '.';
    out += position.epoch;
    out += '.';
    out += std::to_string(position.offset);
  }
  return out;
}

std::variant<protocol::RoomPositions, std::string> parse_stream_id(std::string_view id) {
  protocol::RoomPositions positions;
  if (id.ends_with(',')) return "Last-Event-ID '" + std::string(id) + "' ends with an empty entry";
  while (!id.empty()) {
    const std::size_t comma = id.find(',');
    const std::string_view entry = id.substr(0, comma);
    id = comma == std::string_view::npos ? std::string_view{} : id.substr(comma + 1);
    const std::string what = "Last-Event-ID entry '" + std::string(entry) + "'";
    const std::size_t last = entry.rfind('.');
    if (last == std::string_view::npos || last == 0) {
      return what + " is not ROOM.EPOCH.OFFSET";
    }
    const std::size_t before = entry.rfind('.', last - 1);
    if (before == std::string_view::npos) return what + " is not ROOM.EPOCH.OFFSET";
    const std::optional<std::string> read = read_room(entry.substr(0, before));
    if (!read) return what + ": a room's only escapes are %23 ('#') and %2C (',')";
    const std::string& room = *read;
    const std::string_view epoch = entry.substr(before + 1, last - before - 1);
    const std::string_view offset = entry.substr(last + 1);
    if (auto err = protocol::room_name_error(room)) return what + ": " + *err;
    if (epoch.size() > kMaxEpochBytes || !std::ranges::all_of(epoch, is_epoch_char)) {
      return what + ": the epoch must be at most " + std::to_string(kMaxEpochBytes) +
             " letters, digits, '_' or '-'";
    }
    protocol::StreamPosition position{std::string(epoch), 0};
    auto [end, ec] = std::from_chars(offset.data(), offset.data() + offset.size(), position.offset);
    if (offset.empty() || ec != std::errc{} || end != offset.data() + offset.size()) {
      return what + ": the offset must be a decimal number below 2^64";
    }
    const bool repeated =
        std::ranges::any_of(positions, [&room](const auto& p) { return p.first == room; });
    if (repeated) return what + ": room '" + room + "' is named twice";
    positions.emplace_back(room, std::move(position));
  }
  return positions;
}

}  // namespace herald::gateway::sse
