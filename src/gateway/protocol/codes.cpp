#include "gateway/protocol/codes.hpp"

#include <array>

namespace herald::gateway::protocol {
namespace {

constexpr std::array<ErrorInfo, 17> kErrors{{
    {ErrorCode::internal, "internal", "the server failed; retry later"},
    {ErrorCode::unauthorized, "unauthorized", "send a valid connect command first"},
    {ErrorCode::bad_room, "bad_room", "the room name is empty, too long or has a bad character"},
    {ErrorCode::permission_denied, "permission_denied",
     "the token does not allow this room, or the namespace does not allow the command"},
    {ErrorCode::unknown_command, "unknown_command", "no such command"},
    {ErrorCode::already_subscribed, "already_subscribed", "this connection is subscribed already"},
    {ErrorCode::limit_exceeded, "limit_exceeded",
     "client.max_subscriptions, client.max_pending_per_room or the room's max_subscribers "
     "reached"},
    {ErrorCode::bad_request, "bad_request", "a field is missing or has the wrong type"},
    {ErrorCode::not_available, "not_available",
     "the namespace has history or presence turned off, or the server has the command off (rpc "
     "without proxy.rpc_url)"},
    {ErrorCode::token_expired, "token_expired", "the token's exp is in the past"},
    {ErrorCode::not_subscribed, "not_subscribed", "unsubscribe from a room not subscribed"},
    {ErrorCode::too_many_requests, "too_many_requests",
     "over client.publish_rate or client.command_rate; slow down"},
    {ErrorCode::already_connected, "already_connected", "connect was sent twice"},
    {ErrorCode::moderation_rejected, "moderation_rejected",
     "the publication holds a keyword its namespace's moderation rejects"},
    {ErrorCode::unavailable, "unavailable",
     "a service the command needs (the keyword store behind moderation) cannot be reached; try "
     "again"},
    {ErrorCode::too_many_rooms, "too_many_rooms",
     "the node holds rooms.max_rooms rooms and the command would open one more; try later"},
    {ErrorCode::backend_unavailable, "backend_unavailable",
     "the application backend (proxy.*_url) timed out, could not be reached, answered badly, or "
     "proxy.max_in_flight requests were in flight; the message names which; try again"},
}};

constexpr std::array<DisconnectInfo, 9> kDisconnects{{
    {DisconnectCode::shutdown, "shutdown", "the server is stopping; reconnect and recover"},
    {DisconnectCode::slow_consumer, "slow consumer",
     "the client read too slowly and its queue overflowed; reconnect and recover"},
    {DisconnectCode::token_expired, "token expired", "reconnect with a fresh token"},
    {DisconnectCode::connect_timeout, "connect timeout",
     "no connect command arrived in time; reconnect"},
    {DisconnectCode::stream_reset, "stream reset",
     "a room's stream lost publications (Redis lost data, or a gap outlived the history); "
     "reconnect: the resubscribe says recovered=false"},
    {DisconnectCode::subscription_expired, "subscription expired",
     "a subscription the server made (the server API's subscribe with expire_at) reached its end; "
     "reconnect"},
    {DisconnectCode::bad_request, "bad request",
     "a frame was not valid protocol (bad JSON, missing id); fix the client"},
    {DisconnectCode::unauthorized, "unauthorized", "the token is invalid; do not retry with it"},
    {DisconnectCode::forced, "forced", "disconnected by the server API; do not reconnect"},
}};

constexpr std::array<UnsubscribeInfo, 3> kUnsubscribes{{
    {UnsubscribeCode::server, "server unsubscribe",
     "unsubscribed through the server API; do not subscribe again on your own"},
    {UnsubscribeCode::stream_lost, "stream lost",
     "the room's stream lost publications (Redis lost data, or a gap outlived the history); "
     "subscribe again from your last offset: the reply says whether it recovered"},
    {UnsubscribeCode::expired, "subscription expired",
     "its subscription token expired and no sub_refresh came; subscribe again with a new one"},
}};

// One column of a code's row in `table`, or `fallback` for a code not in
// it: the one lookup every table's names go through.
template <class Table, class Code, class Row>
std::string_view column_of(const Table& table, Code code, std::string_view Row::*column,
                           std::string_view fallback) {
  for (const Row& row : table)
    if (row.code == code) return row.*column;
  return fallback;
}

}  // namespace

std::span<const UnsubscribeInfo> unsubscribe_table() {
  return kUnsubscribes;
}
std::string_view unsubscribe_reason(UnsubscribeCode code) {
  return column_of(kUnsubscribes, code, &UnsubscribeInfo::reason, "unsubscribe");
}

std::span<const ErrorInfo> error_table() {
  return kErrors;
}
std::span<const DisconnectInfo> disconnect_table() {
  return kDisconnects;
}

std::string_view error_name(ErrorCode code) {
  return column_of(kErrors, code, &ErrorInfo::name, "internal");
}

std::string_view disconnect_reason(DisconnectCode code) {
  return column_of(kDisconnects, code, &DisconnectInfo::reason, "disconnect");
}

}  // namespace herald::gateway::protocol
