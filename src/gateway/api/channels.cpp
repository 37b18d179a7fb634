#include "gateway/api/channels.hpp"

#include <fnmatch.h>

#include <charconv>

#include "core/json.hpp"
#include "gateway/codec/lines.hpp"

namespace herald::gateway::api {
namespace {
constexpr std::string_view kChannels = "channels ";
}  // namespace

bool room_matches(const std::string& pattern, const std::string& room) {
  return pattern.empty() || fnmatch(pattern.c_str(), room.c_str(), 0) == 0;
}

std::string channels_question(std::string_view pattern) {
  return std::string(kChannels) + std::string(pattern);
}

RoomCounts local_rooms(const client::NodeCensus& census, std::string_view pattern) {
  RoomCounts out;
  const std::string glob(pattern);  // fnmatch reads C strings: copied once, not per room
  for (auto& [room, n] :
       census.rooms([&glob](const std::string& r) { return room_matches(glob, r); })) {
    out.emplace(std::move(room), n);
  }
  return out;
}

std::string answer_survey(const client::NodeCensus& census, std::string_view question) {
  if (!question.starts_with(kChannels)) return {};
  std::string out;
  for (const auto& [room, n] : local_rooms(census, question.substr(kChannels.size()))) {
    out += std::to_string(n);
    out += ' ';
    out += room;
    out += '\n';
  }
  return out;
}

bool add_answer(std::string_view answer, RoomCounts& into) {
  bool ok = true;
  codec::for_each_line(answer, [&](std::string_view line) {
    if (!ok || line.empty()) return;
    const std::size_t sp = line.find(' ');
    std::uint64_t n = 0;
    const char* end = line.data() + (sp == std::string_view::npos ? line.size() : sp);
    auto [ptr, ec] = std::from_chars(line.data(), end, n);
    if (sp == std::string_view::npos || sp + 1 == line.size() || ec != std::errc() || ptr != end) {
      ok = false;
      return;
    }
    into[std::string(line.substr(sp + 1))] += n;
  });
  return ok;
}

std::string channels_result(const RoomCounts& rooms) {
  std::string out = "{\"channels\":{";
  bool first = true;
  for (const auto& [room, n] : rooms) {
    if (!first) out += ',';
    first = false;
    json::append_string(out, room);
    out += ":{\"num_clients\":" + std::to_string(n) + '}';
  }
  return out + "}}";
}

}  // namespace herald::gateway::api
