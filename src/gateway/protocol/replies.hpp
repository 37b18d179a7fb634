// What the client core answers a command with, as values: one type per
// reply shape. The core (gateway/client/) decides what to answer; a codec
// (gateway/codec/codec.hpp) decides how those values look on its wire, so a
// second protocol is a second encoder of these types, not a second session.
//
// The results of the broker are held by reference: a reply is encoded at
// once, inside the call that builds it, and never kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gateway/protocol/requests.hpp"

namespace herald::gateway::protocol {

// Commands that succeeded with nothing to say. They are three types, not
// one, because a protocol may name the command in its reply (Centrifugo's
// {"id":3,"unsubscribe":{}}): the reply says which it answers.
struct PingReply {};
struct UnsubscribeReply {};
// The room-list commands (rooms.watch, rooms.page, rooms.read, rooms.tag).
struct EmptyReply {};

// A subscription's answer: the broker's result, and what the subscribe
// hook said to the client (a JSON value), or empty.
struct SubscribeReply {
  const SubscribeResult& result;
  std::string_view data_json;
  bool was_recovering = false;  // the subscribe gave a position (result.recovered says if it held)
  // When the subscription ends unless its token is refreshed (sub_refresh):
  // a subscription token's expiry, Unix seconds; nullopt: never.
  std::optional<std::int64_t> expires;
};
struct SubRefreshReply {
  std::optional<std::int64_t> expires;  // Unix seconds; nullopt: never
};

// One server-side subscription in a connect reply: its subscribe answer,
// or why it was refused.
struct ServerSubscription {
  std::string room;
  std::optional<SubscribeResult> result;  // set when it took
  std::string data_json;                  // the subscribe hook's data, or empty
  BrokerError error{};                    // when result is unset
  bool was_recovering = false;            // the connect gave a position for it
};

struct ConnectReply {
  std::string_view client;
  std::string_view user;
  std::optional<std::int64_t> expires;  // Unix seconds, with a token or a hook's expire_at
  std::string_view data_json;           // the connect hook's data for the client, or empty
  const std::vector<ServerSubscription>& subs;
  // An expiry, when there is one, is the client's to push back with
  // refresh (a token's, and no refresh hook doing it for the client).
  bool client_refreshes = false;
};

// A refresh that took: the connection's new expiry, if its token has one.
struct RefreshReply {
  std::string_view client;
  std::optional<std::int64_t> expires;  // Unix seconds
};

struct PublishReply {
  const PublishResult& result;
};
struct HistoryReply {
  const HistoryResult& result;
};
struct PresenceReply {
  const PresenceResult& result;
  bool stats = false;  // presence_stats: counts, not entries
};
// The backend's answer to an rpc, as it sent it (a JSON value).
struct RpcReply {
  std::string_view result_json;
};

using Reply = std::variant<EmptyReply, PingReply, UnsubscribeReply, ConnectReply, RefreshReply,
                           SubscribeReply, SubRefreshReply, PublishReply, HistoryReply,
                           PresenceReply, RpcReply>;

}  // namespace herald::gateway::protocol
