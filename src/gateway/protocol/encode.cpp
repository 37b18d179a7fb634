#include "gateway/protocol/encode.hpp"

#include <charconv>

#include "core/json.hpp"
#include "gateway/protocol/client_object.hpp"

namespace herald::gateway::protocol {
namespace {

void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

// What follows the room (and position) in a publication object, through its
// closing brace.
void append_content(std::string& out, std::string_view data_json, std::string_view info_json,
                    std::string_view moderation_json, std::string_view tags_json) {
  out += ",\"data\":";
  out += data_json;
  if (!info_json.empty()) {
    out += ",\"info\":";
    out += info_json;
  }
  if (!moderation_json.empty()) {
    out += ",\"moderation\":";
    out += moderation_json;
  }
  if (!tags_json.empty()) {
    out += ",\"tags\":";
    out += tags_json;
  }
  out += '}';
}

std::size_t push_capacity(std::string_view room, std::string_view data_json,
                          std::string_view info_json, std::string_view moderation_json,
                          std::string_view tags_json) {
  return 90 + room.size() + data_json.size() + info_json.size() + moderation_json.size() +
         tags_json.size();
}

}  // namespace

std::optional<StreamPosition> stream_position_in_push(std::string_view push) {
  constexpr std::string_view kRoom = "{\"pub\":{\"room\":\"";
  constexpr std::string_view kOffset = ",\"offset\":";
  constexpr std::string_view kEpoch = ",\"epoch\":\"";
  if (!push.starts_with(kRoom)) return std::nullopt;
  // Room names never need escaping (protocol/room_name.hpp): the name ends at
  // the next quote.
  std::size_t at = push.find('"', kRoom.size());
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = push.substr(at + 1);
  if (!rest.starts_with(kOffset)) return std::nullopt;  // outside the stream
  rest.remove_prefix(kOffset.size());
  StreamPosition position;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), position.offset);
  if (ec != std::errc{}) return std::nullopt;
  // Safety: from_chars succeeded, so `end` lies in [rest.begin, rest.end].
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  if (!rest.starts_with(kEpoch)) return std::nullopt;
  rest.remove_prefix(kEpoch.size());
  const std::size_t quote = rest.find('"');
  if (quote == std::string_view::npos) return std::nullopt;
  position.epoch = rest.substr(0, quote);
  return position;
}

std::string encode_result(std::uint32_t id, std::string_view result_json) {
  std::string out;
  out.reserve(24 + result_json.size());
  out += "{\"id\":";
  append_uint(out, id);
  out += ",\"result\":";
  out += result_json;
  out += '}';
  return out;
}

std::string encode_error_object(ErrorCode code, std::string_view message) {
  std::string out;
  out.reserve(40 + message.size());
  out += "{\"error\":{\"code\":";
  // Safety: ErrorCode's underlying type is std::uint16_t.
  append_uint(out, static_cast<std::uint16_t>(code));
  out += ",\"message\":";
  json::append_string(out, message);
  out += "}}";
  return out;
}

std::string encode_error(std::uint32_t id, ErrorCode code, std::string_view message) {
  std::string out;
  out.reserve(48 + message.size());
  out += "{\"id\":";
  append_uint(out, id);
  out += ',';
  out += std::string_view(encode_error_object(code, message)).substr(1);
  return out;
}

void append_publication(std::string& out, std::string_view room, std::uint64_t offset,
                        std::string_view epoch, std::string_view data_json,
                        std::string_view info_json, std::string_view moderation_json,
                        std::string_view tags_json) {
  out += "{\"room\":";
  json::append_string(out, room);
  out += ",\"offset\":";
  append_uint(out, offset);
  out += ",\"epoch\":";
  json::append_string(out, epoch);
  append_content(out, data_json, info_json, moderation_json, tags_json);
}

std::string encode_pub_push(std::string_view room, std::uint64_t offset, std::string_view epoch,
                            std::string_view data_json, std::string_view info_json,
                            std::string_view moderation_json, std::string_view tags_json) {
  std::string out;
  out.reserve(push_capacity(room, data_json, info_json, moderation_json, tags_json) + epoch.size());
  out += kPubPrefix;
  append_publication(out, room, offset, epoch, data_json, info_json, moderation_json, tags_json);
  out += kPubSuffix;
  return out;
}

std::string encode_live_pub_push(std::string_view room, std::string_view data_json,
                                 std::string_view info_json, std::string_view moderation_json,
                                 std::string_view tags_json) {
  std::string out;
  out.reserve(push_capacity(room, data_json, info_json, moderation_json, tags_json));
  out += kPubPrefix;
  out += "{\"room\":";
  json::append_string(out, room);
  append_content(out, data_json, info_json, moderation_json, tags_json);
  out += kPubSuffix;
  return out;
}

std::string encode_presence_push(bool join, std::string_view room, std::string_view info_json) {
  std::string out = join ? "{\"join\":{\"room\":" : "{\"leave\":{\"room\":";
  json::append_string(out, room);
  out += ",\"info\":";
  out += info_json;
  out += "}}";
  return out;
}

std::string encode_disconnect(DisconnectCode code) {
  // Safety: DisconnectCode's underlying type is std::uint16_t.
  return encode_disconnect(static_cast<std::uint16_t>(code), disconnect_reason(code),
                           should_reconnect(code));
}

std::string encode_disconnect(std::uint16_t code, std::string_view reason, bool reconnect) {
  std::string out = "{\"disconnect\":{\"code\":";
  append_uint(out, code);
  out += ",\"reason\":";
  json::append_string(out, reason);
  out += ",\"reconnect\":";
  out += reconnect ? "true" : "false";
  out += "}}";
  return out;
}

std::string encode_refresh_push(std::optional<std::int64_t> expires) {
  if (!expires) return "{\"refresh\":{}}";
  return "{\"refresh\":{\"expires\":" + std::to_string(*expires) + "}}";
}

std::string encode_subscribe_push(std::string_view room, std::string_view epoch,
                                  std::uint64_t offset, std::string_view data_json) {
  std::string out = "{\"subscribe\":{\"room\":";
  json::append_string(out, room);
  out += ",\"epoch\":";
  json::append_string(out, epoch);
  out += ",\"offset\":";
  append_uint(out, offset);
  if (!data_json.empty()) {
    out += ",\"data\":";
    out += data_json;
  }
  out += "}}";
  return out;
}

std::string encode_unsubscribe_push(std::string_view room, UnsubscribeCode code) {
  std::string out = "{\"unsubscribe\":{\"room\":";
  json::append_string(out, room);
  out += ",\"code\":";
  // Safety: UnsubscribeCode's underlying type is std::uint16_t.
  append_uint(out, static_cast<std::uint16_t>(code));
  out += ",\"reason\":";
  json::append_string(out, unsubscribe_reason(code));
  out += ",\"resubscribe\":";
  out += should_resubscribe(code) ? "true" : "false";
  out += "}}";
  return out;
}

std::string encode_client_info(std::string_view user, std::string_view client,
                               std::string_view info_json) {
  std::string out;
  open_client_object(out, client, user);
  if (!info_json.empty()) {
    out += ",\"info\":";
    out += info_json;
  }
  out += '}';
  return out;
}

std::string with_chan_info(std::string_view client_info_json, std::string_view chan_info_json) {
  // client_info_json is an object encode_client_info made: it ends in '}'.
  std::string out(client_info_json.substr(0, client_info_json.size() - 1));
  out += ",\"chan_info\":";
  out += chan_info_json;
  out += '}';
  return out;
}

}  // namespace herald::gateway::protocol
