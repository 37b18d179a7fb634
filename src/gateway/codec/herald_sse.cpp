#include "gateway/codec/herald_sse.hpp"

#include "core/json.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/results.hpp"

namespace herald::gateway::codec::herald_sse {
namespace {

// {"room":"<room>" left open for the event's other fields.
std::string open_room_object(std::string_view room) {
  std::string out = "{\"room\":";
  json::append_string(out, room);
  return out;
}

void append_position(std::string& out, const protocol::StreamPosition& at) {
  out += ",\"epoch\":";
  json::append_string(out, at.epoch);
  out += ",\"offset\":" + std::to_string(at.offset);
}

}  // namespace

std::string connected(const protocol::ConnectReply& reply) {
  std::string out;
  protocol::append_connection_identity(out, reply.client, reply.user);
  out += '}';
  return out;
}

std::string subscribed(std::string_view room, const protocol::StreamPosition& at, bool recovered) {
  std::string out = open_room_object(room);
  append_position(out, at);
  out += recovered ? ",\"recovered\":true}" : ",\"recovered\":false}";
  return out;
}

std::string recovery(std::string_view room, const protocol::StreamPosition& at) {
  std::string out = open_room_object(room);
  out += ",\"recovered\":false";
  append_position(out, at);
  out += '}';
  return out;
}

std::string refused(std::string_view room, const protocol::BrokerError& error) {
  std::string out = open_room_object(room);
  out += ',';
  // {"error":{...}} without its opening brace: the error joins the room's
  // object.
  out += std::string_view(protocol::encode_error_object(error.code, error.message)).substr(1);
  return out;
}

std::string disconnect(std::uint16_t code, std::string_view reason, bool reconnect) {
  return protocol::encode_disconnect(code, reason, reconnect);
}

std::optional<protocol::StreamPosition> position_of(std::string_view push) {
  return protocol::stream_position_in_push(push);
}

}  // namespace herald::gateway::codec::herald_sse
