// What a room list takes from one publication push (a {"pub":...} line in
// the canonical form, protocol/encode.hpp): its room, its sender, its text
// and a preview, and whether it renames the room. Reading the broker's line
// is the canonical form's business, kept beside its encoder, so the client
// core (client/room_list_feed.hpp) reads values, not JSON.
//
//   data {"text":"hi @bob"}     text, preview "hi @bob" (mentions search text)
//   data "hi"                   other, preview "hi"
//   data {"rename":"Lobby"}     rename, preview "renamed the room to Lobby"
//   data {"n":1}                other, preview {"n":1}
//
// An in-stream publication's (epoch, offset) comes with it: a room list
// derives its unread count from positions (state/membership.hpp).
//
// Previews are cut at kPreviewBytes on a UTF-8 code point boundary, with
// "…" added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "gateway/fanout/message.hpp"
#include "gateway/protocol/command.hpp"

namespace herald::gateway::protocol {

inline constexpr std::size_t kPreviewBytes = 120;

struct PublicationSummary {
  enum class Kind : std::uint8_t { text, rename, other };
  bool valid = false;  // a publication push the server encoded
  Kind kind = Kind::other;
  std::string room;
  std::string sender;   // info.user, or empty (the server API's)
  std::string text;     // data.text or the data string, whole
  std::string preview;  // cut; for a rename, the notice
  std::string rename;   // the new name, for a rename
  // Its place in the room's stream; nullopt for one outside it (skip_history).
  std::optional<StreamPosition> position;
};

// The summary of `push`. Every watcher of a room on a shard receives the
// same message, so the last one's summary is kept per thread and returned
// again for it (the message is held meanwhile, so its address cannot name
// another): a publication is parsed once per shard, not once per watcher.
[[nodiscard]] const PublicationSummary& summarize_publication(const fanout::MessagePtr& push);

}  // namespace herald::gateway::protocol
