// connect: who the client is (client/identity.hpp), then its server-side
// subscriptions and its expiry.
#include "core/log.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/client/client.hpp"
#include "gateway/client/client_id.hpp"
#include "gateway/protocol/encode.hpp"
#include "gateway/protocol/user_name.hpp"
#include "gateway/proxy/connect_hook.hpp"
#include "gateway/proxy/refresh_hook.hpp"

namespace herald::gateway::client {
using protocol::DisconnectCode;
using protocol::ErrorCode;

void Client::run(std::uint32_t id, protocol::ConnectCmd& cmd) {
  if (state_kind_ == State::connected) {
    return reply_error(id, ErrorCode::already_connected, "this connection is connected already");
  }
  if (state_kind_ == State::connecting) {
    return reply_error(id, ErrorCode::already_connected,
                       "a connect is in progress (the backend is deciding)");
  }
  auto decision = decide_identity(core_, cmd.token, cmd.user, setup_.asks_hooks);
  if (std::holds_alternative<AskConnectHook>(decision)) return proxy_connect(id, cmd);
  if (auto* refused = std::get_if<IdentityRefusal>(&decision)) {
    using Why = IdentityRefusal::Why;
    switch (refused->why) {
      case Why::no_token_key:
        reply_error(id, ErrorCode::unauthorized, token_key_missing_message());
        return disconnect(DisconnectCode::unauthorized);
      case Why::token_expired:
        reply_error(id, ErrorCode::token_expired, refused->detail);
        return disconnect(DisconnectCode::token_expired);
      case Why::token_invalid:
        reply_error(id, ErrorCode::unauthorized, refused->detail);
        return disconnect(DisconnectCode::unauthorized);
      case Why::key_pending:  // temporary: the client connects again
        return reply_error(id, ErrorCode::unavailable, refused->detail);
      case Why::bad_user:
        return reply_error(
            id, ErrorCode::bad_request,
            "connect.user: dev mode needs a user name of " + protocol::user_name_rule());
      case Why::hook_needs_data:
      case Why::token_required:
        reply_error(id, ErrorCode::unauthorized, "connect.token is required");
        return disconnect(DisconnectCode::unauthorized);
    }
  }
  adopt(std::move(std::get<Identity>(decision)));
  if (claims_) return complete_connect(id, claims_->session_expiry(), {}, claims_->subs, cmd.subs);
  complete_connect(id, std::nullopt, {}, {}, {});
}

void Client::open(Identity identity, const std::vector<std::string>& rooms,
                  const protocol::RoomPositions& since) {
  adopt(std::move(identity));
  // The rooms are the client's choice, not a grant: a namespace that asks
  // the subscribe hook first is refused when the transport cannot ask it.
  std::vector<std::string> asked;
  std::vector<protocol::ServerSubscription> refused;
  for (const std::string& room : rooms) {
    if (auto why = unasked_hook(proxy::HookKind::subscribe, room)) {
      refused.push_back({room, std::nullopt, {}, std::move(*why)});
    } else {
      asked.push_back(room);
    }
  }
  complete_connect(0, claims_ ? claims_->session_expiry() : std::nullopt, {}, asked, since,
                   std::move(refused));
}

void Client::adopt(Identity identity) {
  user_ = std::move(identity.user);
  claims_ = std::move(identity.claims);
  if (claims_) meta_json_ = claims_->meta_json;
  client_id_ = random_client_id();
  // A token's info (Centrifugo's "info"/"b64info") is the connection's for
  // others to see, as the connect hook's is.
  info_json_ = protocol::encode_client_info(user_, client_id_, claims_ ? claims_->info_json : "");
}

void Client::proxy_connect(std::uint32_t id, protocol::ConnectCmd& cmd) {
  state_kind_ = State::connecting;
  client_id_ = random_client_id();
  std::string body = proxy::connect_request_json(client_id_, setup_.forwarded_headers, cmd.data);
  backend(proxy::HookKind::connect)
      ->post(std::move(body),
             [this, weak = owner_, id, since = std::move(cmd.subs)](proxy::BackendAnswer answer) {
               auto alive = weak.lock();
               if (alive && !finished_ && state_kind_ == State::connecting) {
                 on_connect_answer(id, answer, since);
               }
             });
}

void Client::on_connect_answer(std::uint32_t id, proxy::BackendAnswer& answer,
                               const protocol::RoomPositions& since) {
  auto* result = std::get_if<proxy::ResultAnswer>(&answer);
  if (!result) {
    // A refusal ends the attempt; the client may try again (a 116) within
    // client.connect_timeout, which still runs.
    state_kind_ = State::awaiting_connect;
    if (std::holds_alternative<proxy::ErrorAnswer>(answer)) {
      on_backend_refusal(id, "connect", answer);
      return disconnect(DisconnectCode::unauthorized);
    }
    return on_backend_refusal(id, "connect", answer);
  }
  auto read = proxy::read_connect_result(result->json);
  if (auto* wrong = std::get_if<std::string>(&read)) {
    state_kind_ = State::awaiting_connect;
    count_bad_answer(proxy::HookKind::connect);
    proxy::BackendAnswer bad = proxy::FailureAnswer{proxy::Failure::bad_answer, *wrong};
    return on_backend_refusal(id, "connect", bad);
  }
  auto& grant = std::get<proxy::ConnectGrant>(read);
  user_ = std::move(grant.user);
  meta_json_ = std::move(grant.meta_json);
  info_json_ = protocol::encode_client_info(user_, client_id_, grant.info_json);
  complete_connect(id, grant.expire_at, grant.data_json, grant.rooms, since);
}

void Client::complete_connect(std::uint32_t id, std::optional<std::int64_t> expires_at,
                              std::string_view data_json, const std::vector<std::string>& rooms,
                              const protocol::RoomPositions& since,
                              std::vector<protocol::ServerSubscription> refused) {
  connect_timer_.cancel();
  state_kind_ = State::connected;
  if (setup_.in_census && !counted_) {
    core_.census.connected(user_);
    counted_ = true;
  }
  arm_expiry(expires_at);
  // Server-side subscriptions: subscribed as a subscribe command would be
  // (id 0: answered into this reply, not on their own), the reply held
  // until every one has its broker's answer. `awaiting` counts one more
  // than the rooms until the loop ends, as a broker may answer at once.
  pending_connect_ =
      PendingConnect{id, expires_at, std::string(data_json), std::move(refused), rooms.size() + 1};
  for (const std::string& room : rooms) {
    // A reconnecting client recovers where it stopped, as with since.
    SubscriptionTable::Since from;
    for (const auto& [r, position] : since) {
      if (r == room) from = position;
    }
    // A token's options for the room (Centrifugo's subs object): the
    // client's chan_info there, the data its entry in the reply carries and
    // its override of the room's options.
    SubscriptionTable::Args args;
    if (claims_) {
      if (auto o = claims_->sub_options.find(room); o != claims_->sub_options.end()) {
        args.chan_info_json = o->second.info_json;
        args.server_data = o->second.data_json;
        args.override = o->second.override;
      }
    }
    subscribe_server_side(room, std::move(from), std::move(args));
  }
  server_side_subscription_done({});
}

bool Client::refreshes_itself() const {
  return claims_ && backend(proxy::HookKind::refresh) == nullptr;
}

void Client::arm_expiry(std::optional<std::int64_t> ends) {
  if (!ends) return expiry_.cancel();
  std::int64_t expires_at = *ends;
  std::string refresh_request =
      backend(proxy::HookKind::refresh)
          ? proxy::refresh_request_json(client_id_, user_, setup_.forwarded_headers, meta_json_)
          : std::string{};
  // A client that refreshes its own token may do so as it expires
  // (Setup::refresh_grace); the hook, when there is one, is asked at exp.
  if (refreshes_itself()) expires_at += setup_.refresh_grace.count();
  expiry_.arm(expires_at, owner_, std::move(refresh_request),
              [this](std::optional<proxy::DisconnectAnswer> bye) {
                if (finished_) return;
                if (!bye) return disconnect(DisconnectCode::token_expired);
                disconnect(bye->code, bye->reason, proxy::backend_disconnect_reconnects(bye->code));
              });
}

void Client::server_refresh(bool expired, std::optional<std::int64_t> expire_at,
                            std::optional<std::string> info) {
  if (state_kind_ != State::connected) return;
  const std::optional<std::int64_t> ends = expire_at == 0 ? std::nullopt : expire_at;
  if (expired || (ends && *ends <= unix_now())) return disconnect(DisconnectCode::token_expired);
  if (info) {
    info_json_ = protocol::encode_client_info(user_, client_id_, *info);
    subscriptions_.for_each_active([this](const std::string& room) {
      core_.broker->update_presence(shard_core_.index, room, client_id_, user_, info_in(room));
    });
  }
  arm_expiry(ends);
  out_.push({}, fanout::make_message(protocol::encode_refresh_push(ends)));
}

void Client::server_side_subscription_done(protocol::ServerSubscription sub) {
  if (!pending_connect_) return;
  PendingConnect& p = *pending_connect_;
  if (!sub.room.empty()) p.subs.push_back(std::move(sub));
  if (--p.awaiting != 0) return;
  PendingConnect done = std::move(p);
  pending_connect_.reset();
  reply(done.id, protocol::ConnectReply{client_id_, user_, done.expires, done.data_json, done.subs,
                                        refreshes_itself()});
}

// The client's own refresh (Centrifugo's client-side refresh): a fresh
// token of the same user moves the connection's expiry. A token that does
// not verify, or names another user, ends the connection as a bad one at
// connect would (3501); one already expired ends it as expiry does (3003,
// and the client reconnects with a fresh token). Its other claims (rooms,
// subs) replace the old ones for what comes next; subscriptions already
// made stay.
void Client::run(std::uint32_t id, protocol::RefreshCmd& cmd) {
  if (!claims_ || !core_.verifier) {
    return reply_error(id, ErrorCode::not_available,
                       "refresh: this connection's identity has no token to refresh (it came "
                       "from the connect hook or dev mode)");
  }
  auth::VerifyResult r = core_.verifier->verify(cmd.token, unix_now());
  if (auto* e = std::get_if<auth::TokenError>(&r); e && *e == auth::TokenError::key_pending) {
    return reply_error(id, ErrorCode::unavailable, auth::describe(*e));  // the client tries again
  }
  if (auto* e = std::get_if<auth::TokenError>(&r)) {
    log::info("refresh refused",
              {{"client", client_id_}, {"user", user_}, {"error", auth::describe(*e)}});
    return disconnect(*e == auth::TokenError::expired ? DisconnectCode::token_expired
                                                      : DisconnectCode::unauthorized);
  }
  auto& claims = std::get<auth::Claims>(r);
  if (claims.user != user_) {
    log::info("refresh refused: the token names another user",
              {{"client", client_id_}, {"user", user_}, {"token_user", claims.user}});
    return disconnect(DisconnectCode::unauthorized);
  }
  claims_ = std::move(claims);
  meta_json_ = claims_->meta_json;  // the refreshed token's meta is the connection's now
  const std::optional<std::int64_t> ends = claims_->session_expiry();
  arm_expiry(ends);
  reply(id, protocol::RefreshReply{client_id_, ends});
}

}  // namespace herald::gateway::client
