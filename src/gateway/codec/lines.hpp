// A text message of the JSON protocols as lines: both Herald's and
// Centrifugo's put one JSON object per line ('\n') and let a client batch
// several in one WebSocket message. The splitting and the hand-off to a
// CommandSink are the same for both codecs; only the parse of a line is
// theirs.
#pragma once

#include <string_view>
#include <variant>

#include "gateway/codec/codec.hpp"

namespace herald::gateway::codec {

// Calls f(line) for each non-empty line of a frame ('\n' separated; a
// trailing '\r' on a line is dropped).
template <class F>
void for_each_line(std::string_view frame, F&& f) {
  while (!frame.empty()) {
    auto nl = frame.find('\n');
    std::string_view line = frame.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) f(line);
    if (nl == std::string_view::npos) break;
    frame.remove_prefix(nl + 1);
  }
}

// Parses each line with `parse` (which returns a variant holding a
// protocol::Command, a protocol::CommandError, or a line that asks nothing
// of the core) and hands commands and refusals to `sink` in order, until
// the sink says to stop (the connection is closing).
template <class Parse>
void decode_lines(std::string_view frame, CommandSink& sink, Parse&& parse) {
  bool go_on = true;
  for_each_line(frame, [&](std::string_view line) {
    if (!go_on) return;
    auto parsed = parse(line);
    if (auto* cmd = std::get_if<protocol::Command>(&parsed)) {
      go_on = sink.on_command(*cmd);
    } else if (auto* err = std::get_if<protocol::CommandError>(&parsed)) {
      go_on = sink.on_refused(*err);
    }
  });
}

}  // namespace herald::gateway::codec
