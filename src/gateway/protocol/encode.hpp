// Server-to-client messages, written by appending to one std::string (no
// JSON tree). Replies echo the command id; pushes carry no id:
//
//   {"id":3,"result":{...}}
//   {"id":3,"error":{"code":103,"message":"..."}}
//   {"pub":{"room":"chat:lobby","offset":7,"epoch":"5f2c9a1e","data":{...},"info":{...}}}
//   ("moderation":{...} follows info when moderation masked or flagged, and
//   "tags":{"k":"v",...} the publisher's tags, Centrifugo's, when it gave
//   any; a publication outside the stream has no offset and no epoch)
//   {"join":{"room":"chat:lobby","info":{"user":"alice","client":"..."}}}
//   {"leave":{"room":"chat:lobby","info":{...}}}
//   {"disconnect":{"code":3001,"reason":"shutdown","reconnect":true}}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/protocol/codes.hpp"
#include "gateway/protocol/command.hpp"

namespace herald::gateway::protocol {

// {"id":<id>,"result":<result_json>}
[[nodiscard]] std::string encode_result(std::uint32_t id, std::string_view result_json);
// {"id":<id>,"error":{"code":<code>,"message":"..."}}
[[nodiscard]] std::string encode_error(std::uint32_t id, ErrorCode code, std::string_view message);
// {"error":{"code","message"}}: an error inside another result (a
// server-side subscription's, in a connect reply).
[[nodiscard]] std::string encode_error_object(ErrorCode code, std::string_view message);

// The publication object, as stored in history and embedded in pushes,
// subscribe replies and history replies. data_json, info_json,
// moderation_json and tags_json must be valid JSON (they are copied as they
// are); info, moderation and tags are left out when empty.
void append_publication(std::string& out, std::string_view room, std::uint64_t offset,
                        std::string_view epoch, std::string_view data_json,
                        std::string_view info_json, std::string_view moderation_json = {},
                        std::string_view tags_json = {});

// {"pub":<publication>}: the push frame, built once per publication and
// shared by every recipient. kPubPrefix/kPubSuffix let the publication be
// sliced back out of a frame without copying.
inline constexpr std::string_view kPubPrefix = "{\"pub\":";
inline constexpr std::string_view kPubSuffix = "}";
// The publication inside a {"pub":...} push, as a view into it.
[[nodiscard]] inline std::string_view publication_in_push(std::string_view push) {
  return push.substr(kPubPrefix.size(), push.size() - kPubPrefix.size() - kPubSuffix.size());
}
// The {epoch, offset} of an in-stream {"pub":...} push, read from the
// fixed prefix encode_pub_push writes (the cluster's frames have the same
// bytes): {"pub":{"room":"...","offset":N,"epoch":"..." . nullopt for a
// publication outside the stream and for any other frame. Reads only the
// prefix, never the data.
[[nodiscard]] std::optional<StreamPosition> stream_position_in_push(std::string_view push);
[[nodiscard]] std::string encode_pub_push(std::string_view room, std::uint64_t offset,
                                          std::string_view epoch, std::string_view data_json,
                                          std::string_view info_json,
                                          std::string_view moderation_json = {},
                                          std::string_view tags_json = {});
// A publication outside its room's stream (the publish hook's
// skip_history, the server API's too): {"pub":{"room","data","info"?,
// "moderation"?}}, with no offset and no epoch. It reaches the subscribers
// of the moment and nobody else: no history keeps it, no recovery brings it
// back, and a client's position in the room does not move.
[[nodiscard]] std::string encode_live_pub_push(std::string_view room, std::string_view data_json,
                                               std::string_view info_json,
                                               std::string_view moderation_json = {},
                                               std::string_view tags_json = {});

// {"refresh":{"expires":T}}, or {"refresh":{}} for never: the server moved
// the connection's expiry (the server API's refresh).
[[nodiscard]] std::string encode_refresh_push(std::optional<std::int64_t> expires);
// {"subscribe":{"room":R,"epoch":E,"offset":N}}: the server subscribed the
// connection to R (the server API's subscribe), at that position.
[[nodiscard]] std::string encode_subscribe_push(std::string_view room, std::string_view epoch,
                                                std::uint64_t offset,
                                                std::string_view data_json = {});
// {"unsubscribe":{"room":R,"code":C,"reason":"..","resubscribe":B}}: the
// server ended the subscription (protocol::UnsubscribeCode).
[[nodiscard]] std::string encode_unsubscribe_push(std::string_view room, UnsubscribeCode code);
// {"join":{...}} or {"leave":{...}}
[[nodiscard]] std::string encode_presence_push(bool join, std::string_view room,
                                               std::string_view info_json);
// Whether a frame the broker delivered is one of those: what a
// subscription that is not sent them (client/subscription_flags.hpp)
// drops. Its first bytes tell, as encode_presence_push writes them.
[[nodiscard]] inline bool is_presence_push(std::string_view frame) {
  return frame.starts_with(R"({"join":)") || frame.starts_with(R"({"leave":)");
}

[[nodiscard]] std::string encode_disconnect(DisconnectCode code);
// A disconnect the application backend asked for (docs/backend.md): its
// own code (4000..4999) and reason.
[[nodiscard]] std::string encode_disconnect(std::uint16_t code, std::string_view reason,
                                            bool reconnect);

// {"user":"...","client":"..."}: a connection's info, attached to its
// publications and presence entries.
// `info_json`: what the connect hook said of the user (an object), or empty.
[[nodiscard]] std::string encode_client_info(std::string_view user, std::string_view client,
                                             std::string_view info_json = {});
// A connection's info (encode_client_info's object) with "chan_info" (what
// the subscribe hook said of the user in one room) added.
[[nodiscard]] std::string with_chan_info(std::string_view client_info_json,
                                         std::string_view chan_info_json);

}  // namespace herald::gateway::protocol
