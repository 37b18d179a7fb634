// Subscription tokens (Centrifugo's): a JWT with `channel` naming the room
// and `sub` the user, which a private room ('$', protocol/room_name.hpp)
// needs and any room accepts. It grants the subscribe by itself (no rooms
// claim, user list or subscribe hook is asked), gives the client's
// presence in the room the token's info (chan_info), carries its data
// (data or b64data) to the client in the subscribe reply, and may end the
// subscription: past the token's expiry (expire_at, else exp) the
// subscription is ended with an unsubscribe push, 2501, unless sub_refresh
// brought a new token first. Like a connection's, the end waits
// Setup::refresh_grace for a protocol whose SDK refreshes only once the
// token has expired.
//
// A token for another room, user or client closes the connection (3501),
// as Centrifugo closes it: such a client is not confused, it is lying.
#include "core/log.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client/client.hpp"
#include "gateway/protocol/room_name.hpp"

namespace herald::gateway::client {
using protocol::DisconnectCode;
using protocol::ErrorCode;

std::optional<auth::Claims> Client::verified_subscription(std::uint32_t id, const std::string& room,
                                                          std::string_view token) {
  const auth::TokenVerifier* verifier = core_.subscription_tokens();
  if (verifier == nullptr) {
    reply_error(id, ErrorCode::not_available,
                "subscription tokens need a token key (auth.hmac_secret, "
                "auth.subscription_hmac_secret or a public key)");
    return std::nullopt;
  }
  auth::VerifyResult r = verifier->verify(token, unix_now(), auth::TokenUse::subscription);
  if (auto* e = std::get_if<auth::TokenError>(&r)) {
    if (*e == auth::TokenError::expired) {
      reply_error(id, ErrorCode::token_expired,
                  "the subscription token for '" + room + "' has expired: get a new one");
    } else if (*e == auth::TokenError::key_pending) {
      reply_error(id, ErrorCode::unavailable,
                  "the subscription token for '" + room + "': " + std::string(auth::describe(*e)));
    } else {
      reply_error(id, ErrorCode::permission_denied,
                  "the subscription token for '" + room +
                      "' is refused: " + std::string(auth::describe(*e)));
    }
    return std::nullopt;
  }
  auto& claims = std::get<auth::Claims>(r);
  if (claims.channel != room || claims.user != user_ ||
      (!claims.client.empty() && claims.client != client_id_)) {
    log::info("subscription token for another room, user or client",
              {{"client", client_id_},
               {"user", user_},
               {"room", room},
               {"token_channel", claims.channel},
               {"token_user", claims.user},
               {"token_client", claims.client}});
    disconnect(DisconnectCode::unauthorized);
    return std::nullopt;
  }
  return std::move(claims);
}

void Client::subscribe_with_token(std::uint32_t id, protocol::SubscribeCmd& cmd) {
  if (auto err = protocol::room_name_error(cmd.room)) {
    return reply_error(id, ErrorCode::bad_room, *err);
  }
  std::optional<auth::Claims> claims = verified_subscription(id, cmd.room, cmd.token);
  if (!claims) return;
  SubscriptionTable::Args args;
  args.data = std::move(cmd.data);
  args.granted_by_token = true;
  args.chan_info_json = std::move(claims->info_json);
  args.server_data = std::move(claims->data_json);
  args.expires = claims->session_expiry();
  args.override = claims->override;
  args.join_leave = cmd.join_leave;
  subscribe_in_table(id, cmd, std::move(args));
}

void Client::run(std::uint32_t id, protocol::SubRefreshCmd& cmd) {
  auto it = token_rooms_.find(cmd.room);
  if (it == token_rooms_.end()) {
    return reply_error(id, ErrorCode::not_subscribed,
                       "sub_refresh: no subscription to '" + cmd.room + "' came with a token");
  }
  std::optional<auth::Claims> claims = verified_subscription(id, cmd.room, cmd.token);
  if (!claims) return;
  // `it` still stands: verifying waits for nothing, and a refusal above
  // returned before here.
  it->second = claims->session_expiry();
  const std::optional<std::int64_t> expires = it->second;
  arm_subscription_expiry();
  reply(id, protocol::SubRefreshReply{expires});
}

void Client::track_token_subscription(const std::string& room, std::optional<TokenGrant> grant) {
  if (!grant) {
    if (token_rooms_.erase(room) != 0) arm_subscription_expiry();
    return;
  }
  token_rooms_[room] = grant->expires;
  if (grant->expires) arm_subscription_expiry();
}

void Client::arm_subscription_expiry() {
  std::optional<std::int64_t> earliest;
  for (const auto& [room, expires] : token_rooms_) {
    if (expires && (!earliest || *expires < *earliest)) earliest = expires;
  }
  subscription_expiry_timer_.cancel();
  if (!earliest || finished_) return;
  const std::int64_t end = *earliest + setup_.refresh_grace.count();
  subscription_expiry_timer_.expires_after(auth::wait_until_expiry(end, unix_now()));
  subscription_expiry_timer_.async_wait([this, weak = owner_](boost::system::error_code ec) {
    if (ec) return;  // re-armed or finished
    auto alive = weak.lock();
    if (!alive || finished_) return;
    expire_subscriptions();
  });
}

void Client::expire_subscriptions() {
  const std::int64_t now = unix_now();
  std::vector<std::string> ended;
  for (const auto& [room, expires] : token_rooms_) {
    if (expires && *expires + setup_.refresh_grace.count() <= now) ended.push_back(room);
  }
  // Each unsubscribe leaves the room, which takes it out of token_rooms_.
  for (const std::string& room : ended) {
    log::info("subscription expired", {{"client", client_id_}, {"user", user_}, {"room", room}});
    // One the server made (the API's expire_at) the client cannot renew:
    // the connection ends, as Centrifugo ends it.
    if (server_side_rooms_.contains(room)) return disconnect(DisconnectCode::subscription_expired);
    server_unsubscribe(room, protocol::UnsubscribeCode::expired);
  }
  arm_subscription_expiry();
}

}  // namespace herald::gateway::client
