#include "gateway/sse/stream_id.hpp"

#include <algorithm>
#include <charconv>

#include "gateway/protocol/room_name.hpp"

namespace herald::gateway::sse {
namespace {

bool is_epoch_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '-';
}

}  // namespace

std::string format_stream_id(const protocol::RoomPositions& positions) {
  std::string out;
  for (const auto& [room, position] : positions) {
    if (!out.empty()) out += ',';
    out += room;
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
    const std::string_view room = entry.substr(0, before);
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
    const bool repeated = std::ranges::any_of(
        positions, [room](const auto& p) { return std::string_view(p.first) == room; });
    if (repeated) return what + ": room '" + std::string(room) + "' is named twice";
    positions.emplace_back(std::string(room), std::move(position));
  }
  return positions;
}

}  // namespace herald::gateway::sse
