#include "gateway/codec/centrifugo_codes.hpp"

namespace herald::gateway::codec::centrifugo {

using protocol::DisconnectCode;
using protocol::ErrorCode;

namespace {

// Herald's code kept in Centrifugo's application range.
constexpr std::uint32_t kept(ErrorCode code) {
  // Safety: ErrorCode's underlying type is std::uint16_t.
  return 1000U + static_cast<std::uint32_t>(code);
}

}  // namespace

Error error_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::internal:
      return {100, true};
    case ErrorCode::unauthorized:
      return {101, false};
    case ErrorCode::bad_room:
      return {107, false};  // a malformed channel name: Centrifugo's bad request
    case ErrorCode::permission_denied:
      return {103, false};
    case ErrorCode::unknown_command:
      return {104, false};  // method not found
    case ErrorCode::already_subscribed:
      return {105, false};
    case ErrorCode::limit_exceeded:
    case ErrorCode::too_many_rooms:
      return {106, false};
    case ErrorCode::bad_request:
    case ErrorCode::already_connected:  // a second connect: Centrifugo's bad request
      return {107, false};
    case ErrorCode::not_available:
      return {108, false};
    case ErrorCode::token_expired:
      return {109, false};  // the SDK refreshes its token and retries
    case ErrorCode::not_subscribed:
      return {103, false};  // history, presence or publish outside the channel
    case ErrorCode::too_many_requests:
      return {111, true};
    case ErrorCode::moderation_rejected:
      return {kept(code), false};
    case ErrorCode::unavailable:
    case ErrorCode::backend_unavailable:
      return {kept(code), true};
  }
  return {100, true};
}

Disconnect disconnect_for(std::uint16_t code, std::string_view reason) {
  // Safety: DisconnectCode's underlying type is std::uint16_t; a code that
  // is none of its values (a backend's) reaches the return below.
  switch (static_cast<DisconnectCode>(code)) {
    case DisconnectCode::shutdown:
      return {3001, "shutdown"};
    case DisconnectCode::slow_consumer:
      return {3008, "slow"};
    case DisconnectCode::token_expired:
      return {3005, "connection expired"};
    case DisconnectCode::connect_timeout:
      // Centrifugo's "stale" (3502) is final; Herald lets the client try
      // again, so its generic reconnecting code, with Herald's words.
      return {3000, "connect timeout"};
    case DisconnectCode::stream_reset:
      return {3010, "insufficient state"};
    case DisconnectCode::subscription_expired:
      return {3006, "subscription expired"};
    case DisconnectCode::bad_request:
      return {3501, "bad request"};
    case DisconnectCode::unauthorized:
      return {3500, "invalid token"};
    case DisconnectCode::forced:
      return {3503, "force disconnect"};
  }
  return {code, reason.empty() ? std::string_view("disconnect") : reason};
}

}  // namespace herald::gateway::codec::centrifugo
