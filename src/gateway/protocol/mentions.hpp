// Mentions: "@name" in a publication's data.text names a user. One rule,
// read by the room list's count for rooms the user only subscribed to
// (client/room_list_feed.cpp) and by the mentions kept per membership
// (membership/mentioning_broker.hpp), so a mention counts the same in both.
//
// A mention is '@' at the start of the text or after a byte that cannot be
// in a name, then the name: ASCII letters and digits, '_', '-', '.', and
// every byte from 0x80 (other scripts, in UTF-8), less the dots it ends
// with ("thanks @ann." names ann). A user whose name holds other bytes (a
// space, '@') cannot be mentioned. "@annie" does not mention ann.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace herald::gateway::protocol {

// The users `text` mentions, each once, in the order first mentioned, at
// most `max` (the rest are not looked for). Views into `text`.
[[nodiscard]] std::vector<std::string_view> mentioned_users(std::string_view text, std::size_t max);
// Whether `text` mentions `user`; allocates nothing.
[[nodiscard]] bool mentions(std::string_view text, std::string_view user);

}  // namespace herald::gateway::protocol
