#include "gateway/client/publish_checks.hpp"

#include "gateway/protocol/room_name.hpp"

namespace herald::gateway::client {
using protocol::ErrorCode;

std::optional<protocol::BrokerError> room_refusal(const std::optional<auth::Claims>& claims,
                                                  std::string_view user, const std::string& room) {
  if (auto err = protocol::room_name_error(room))
    return protocol::BrokerError{ErrorCode::bad_room, *err};
  if (!protocol::room_admits_user(room, user)) {
    return protocol::BrokerError{ErrorCode::permission_denied,
                                 "room '" + room +
                                     "' is limited to the users after its '#', and '" +
                                     std::string(user) + "' is not one of them"};
  }
  if (claims && !claims->allows(room)) {
    return protocol::BrokerError{ErrorCode::permission_denied,
                                 "the token does not allow room '" + room + "'"};
  }
  return std::nullopt;
}

std::optional<protocol::BrokerError> publish_refusal(const Options& options,
                                                     const std::optional<auth::Claims>& claims,
                                                     std::string_view user, const std::string& room,
                                                     std::size_t data_bytes) {
  if (auto refused = room_refusal(claims, user, room)) return refused;
  const RoomOptions& opts = options.room_options(room);
  if (!opts.publish) {
    return protocol::BrokerError{
        ErrorCode::permission_denied,
        "clients may not publish in '" + room + "' (its namespace has publish = false)"};
  }
  if (data_bytes > opts.max_publication_bytes) {
    return protocol::BrokerError{ErrorCode::limit_exceeded,
                                 "publish.data is " + std::to_string(data_bytes) +
                                     " bytes; max_publication_bytes is " +
                                     std::to_string(opts.max_publication_bytes)};
  }
  return std::nullopt;
}

}  // namespace herald::gateway::client
