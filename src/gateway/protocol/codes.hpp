// The numbers a client sees: error codes in command replies and disconnect
// codes in close frames. docs/protocol.md carries the same tables; a test
// checks that every code here appears there.
//
// Disconnect codes follow one rule a client can rely on without knowing each
// code: 3000-3499 means "reconnect (and recover from your last offset)",
// 3500-3999 means "do not reconnect with the same credentials".
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace herald::gateway::protocol {

enum class ErrorCode : std::uint16_t {
  internal = 100,
  unauthorized = 101,
  bad_room = 102,
  permission_denied = 103,
  unknown_command = 104,
  already_subscribed = 105,
  limit_exceeded = 106,
  bad_request = 107,
  not_available = 108,
  token_expired = 109,
  not_subscribed = 110,
  too_many_requests = 111,
  already_connected = 112,
  moderation_rejected = 113,
  unavailable = 114,
  too_many_rooms = 115,
  backend_unavailable = 116,
};

enum class DisconnectCode : std::uint16_t {
  shutdown = 3001,              // server stopping: reconnect elsewhere or later
  slow_consumer = 3002,         // outbound queue over client.max_queue_bytes
  token_expired = 3003,         // reconnect with a fresh token
  connect_timeout = 3004,       // no connect command within client.connect_timeout
  stream_reset = 3005,          // cluster: a room's stream could not be continued without a hole
  subscription_expired = 3006,  // a subscription the server made reached its end (expire_at)
  bad_request = 3500,           // malformed frame, JSON, or command envelope
  unauthorized = 3501,          // invalid token
  forced = 3502,                // disconnected through the server API
};

// Why the server ended one subscription of a connection that stays open
// (an unsubscribe push), with a rule of the same kind as disconnects':
// 2500-2999 means "subscribe again (and recover from your last offset)",
// below 2500 "the server meant it". The numbers are Centrifugo's for the
// same causes, so its SDKs read them unchanged.
enum class UnsubscribeCode : std::uint16_t {
  server = 2000,       // unsubscribed through the server API
  stream_lost = 2500,  // the room's stream could not be continued without a hole
  expired = 2501,      // its subscription token expired and was not refreshed in time
};

struct ErrorInfo {
  ErrorCode code;
  std::string_view name;
  std::string_view meaning;
};

struct DisconnectInfo {
  DisconnectCode code;
  std::string_view reason;
  std::string_view meaning;
};

struct UnsubscribeInfo {
  UnsubscribeCode code;
  std::string_view reason;
  std::string_view meaning;
};

[[nodiscard]] std::span<const ErrorInfo> error_table();
[[nodiscard]] std::span<const UnsubscribeInfo> unsubscribe_table();
[[nodiscard]] std::string_view unsubscribe_reason(UnsubscribeCode code);
[[nodiscard]] std::span<const DisconnectInfo> disconnect_table();
[[nodiscard]] std::string_view error_name(ErrorCode code);
[[nodiscard]] std::string_view disconnect_reason(DisconnectCode code);

[[nodiscard]] constexpr bool should_reconnect(DisconnectCode code) {
  return static_cast<std::uint16_t>(code) < 3500;
}
[[nodiscard]] constexpr bool should_resubscribe(UnsubscribeCode code) {
  return static_cast<std::uint16_t>(code) >= 2500;
}

}  // namespace herald::gateway::protocol
