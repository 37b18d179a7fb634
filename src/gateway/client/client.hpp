// The client core: one connected client's protocol state, and the
// execution of every command against the broker, the backend hooks,
// moderation (behind the broker) and the limits. It knows neither how the
// commands were decoded (a codec did: codec/codec.hpp) nor how the answers
// leave (its Output does: client/output.hpp), so every wire protocol and
// every transport drives this one class. Centrifuge has the same shape: its
// WebSocket and SSE handlers both build one Client over a Transport.
//
// The definitions are split by command family, one file each:
//   client.cpp          lifecycle, dispatch, deliveries, disconnects
//   connect.cpp         connect: the identity rule, the connect hook,
//                       server-side subscriptions, expiry and refresh
//   subscriptions.cpp   subscribe and unsubscribe (client/subscription_table.hpp decides),
//                       the server's unsubscribe, a lost stream
//   subscription_tokens.cpp  subscription tokens: private rooms, sub_refresh,
//                       their expiry
//   publish.cpp         publish, its checks and its hook
//   history.cpp         history
//   presence.cpp        presence and presence_stats
//   rpc.cpp             rpc, and every hook's non-result answer
//   room_list.cpp       rooms.watch, rooms.page, rooms.read, rooms.tag,
//                       rooms.mark_unread, rooms.notify
//   room_list_follows.cpp  the memberships the list follows without a
//                       subscription
//
// Lives on one shard; every member runs on that shard's thread. Its owner
// (the transport's session) holds it; every pending operation (a timer, a
// broker answer) holds the owner through the pointer start() is given, and
// a backend request holds it weakly (a stalled backend keeps no closed
// client alive).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gateway/auth/token.hpp"
#include "gateway/client/context.hpp"
#include "gateway/client/identity.hpp"
#include "gateway/client/output.hpp"
#include "gateway/client/room_list_feed.hpp"
#include "gateway/client/session_expiry.hpp"
#include "gateway/client/subscription_flags.hpp"
#include "gateway/client/subscription_table.hpp"
#include "gateway/fanout/subscriber.hpp"
#include "gateway/limits/token_bucket.hpp"
#include "gateway/limits/user_rates.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/proxy/answers_in_order.hpp"

namespace herald::gateway::client {

// What a transport tells the core of the connection, once.
struct Setup {
  std::string peer;               // the client's address, for the hooks' X-Forwarded-For
  std::string forwarded_headers;  // proxy.forward_headers of the request, as the hooks' JSON
  // Whether this transport carries the backend hooks' requests (the
  // connect hook's data, the refresh hook): a WebSocket does, an SSE
  // stream and an HTTP publish do not (docs/protocol.md). Rooms whose
  // namespace needs the subscribe or publish hook are refused to such a
  // client (not_available), by the core, whatever the transport.
  bool asks_hooks = true;
  // client.publish_rate kept per user over every shard instead of per
  // connection: for a transport with no lasting connection to keep it on
  // (an HTTP publish: one client per request). Null: per connection.
  limits::UserRates* publish_rate_per_user = nullptr;
  // What unsubscribing from a room the client is not in answers: the
  // codec's protocol says (codec::Codec::unsubscribe_is_idempotent).
  SubscriptionTable::Absent unsubscribe_absent = SubscriptionTable::Absent::refused;
  // How long past its token's exp a client that refreshes itself (a token,
  // no refresh hook) keeps its connection: 0 for a protocol whose clients
  // refresh before the end, client.refresh_grace for one whose SDK sends
  // refresh when the token expires (codec::Codec::refreshes_at_expiry).
  std::chrono::seconds refresh_grace{0};
  // How a room whose stream was lost is recovered
  // (codec::Codec::resubscribes_lost_streams): false, the connection is
  // closed with 3005 and the client reconnects and recovers every room;
  // true, the room alone is unsubscribed with a push (2500) its client
  // answers by subscribing again from its last offset, the others going
  // on. A server-side subscription is always recovered by reconnecting:
  // its client has no subscribe of its own to send again.
  bool resubscribes_lost_streams = false;
  // Whether the node's census (node_census.hpp) counts this client once
  // connected: a connection does, an HTTP publish (one client per
  // request) does not.
  bool in_census = true;
};

class Client final : public fanout::Subscriber {
 public:
  // `executor` is the shard's: every timer and answer runs on its thread.
  Client(CoreContext& core, ShardCore& shard, const boost::asio::any_io_executor& executor,
         Output& out, Setup setup);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The transport is open; `owner` keeps the transport's session alive for
  // every pending operation. Starts client.connect_timeout.
  void start(std::weak_ptr<void> owner);

  // A command decoded by the transport's codec, or one it could not read.
  void execute(protocol::Command& command);
  void refuse(const protocol::CommandError& error);
  // Whether commands are still read (false once the connection is ending).
  [[nodiscard]] bool reading() const {
    return state_kind_ != State::closing && state_kind_ != State::closed;
  }

  // An identity the transport established itself (an HTTP request:
  // sse/client_identity.hpp), with the rooms the client asked for (an SSE
  // stream's; none for an HTTP publish), subscribed from `since` where
  // given; answered by one ConnectReply (command id 0) once every room has
  // its broker's answer or its refusal.
  void open(Identity identity, const std::vector<std::string>& rooms,
            const protocol::RoomPositions& since);

  // The transport is about to write: the room list's diffs since the last
  // write go out as one push, after the publications that caused them.
  void before_write();

  // Subscriber: a push from the hub, handed to the transport; a
  // publication also updates the room list.
  void deliver(const std::string& room, const fanout::MessagePtr& message) override;
  // Subscriber: a disconnect push and the end of the connection.
  void disconnect(protocol::DisconnectCode code) override;
  // Subscriber: the room's stream was lost (Setup::resubscribes_lost_streams
  // says how the client recovers). Its deliveries stop at once; the
  // unsubscribe, which leaves the hub, runs on a turn of its own.
  void stream_lost(const std::string& room) override;
  // The server moves the connection's end (the server API's refresh, as
  // Centrifugo's): `expired` or an `expire_at` already past closes it now
  // (3003); a later one is its new end, 0 or none means never; the client
  // is told by a refresh push.
  // `info` (JSON; nullopt: unchanged), Centrifugo's refresh info, is the
  // connection's conn_info from then on: on its publications and, through
  // the broker, in its presence entries.
  void server_refresh(bool expired, std::optional<std::int64_t> expire_at,
                      std::optional<std::string> info = std::nullopt);
  // The server subscribes the client to `room` (the server API's
  // subscribe): as a server-side subscription of connect, told by a
  // subscribe push once the broker answered (none when it was subscribed
  // already or the broker refused). Only a connection whose connect was
  // answered: one still connecting is left as it is.
  struct ServerSubscribe {
    // The client's chan_info in the room's presence and join/leave (an
    // object, or empty).
    std::string chan_info_json;
    std::string data_json;  // rides on the push (JSON, or empty)
    // Centrifugo's recover_since: when the room's history still holds
    // every publication after it, they are pushed after the subscribe push;
    // otherwise the subscription starts at the push's position as without.
    std::optional<protocol::StreamPosition> since;
    // Centrifugo's expire_at (Unix seconds): when the subscription ends.
    // The connection is closed then (3006, reconnect), as Centrifugo closes
    // one whose server-side subscription expired: the client cannot renew
    // a subscription it did not make. nullopt: never.
    std::optional<std::int64_t> expires;
    // Centrifugo's override of the room's options for this subscription.
    auth::SubscribeOverride override;
  };
  void server_subscribe(const std::string& room, ServerSubscribe how = {});
  // The server ends the client's subscription to `room` (the server API's
  // unsubscribe): left, and an unsubscribe push with `code` if it was
  // subscribed, in the room's order (SubscriptionTable::server_unsubscribe).
  void server_unsubscribe(const std::string& room, protocol::UnsubscribeCode code);
  // The same with a code and reason of the application backend's
  // (4000..4999; docs/backend.md).
  void disconnect(std::uint16_t code, std::string_view reason, bool reconnect);
  // Over client.max_queue_bytes: 3002, counted and logged; `what` (a
  // literal) was owed and `backlog_bytes` is what the transport held. The
  // one call a transport may make from inside an Output call (that is
  // where it finds the overflow): it takes no more commands and hands the
  // transport nothing more at once, and closes it (Output::close_now) on a
  // turn of its own, never re-entering the transport or the hub.
  void close_slow_consumer(std::string_view what, std::int64_t backlog_bytes);

  // The user's membership of `room` changed in the membership store (a
  // read or a tag on another connection, the server API's members_add or
  // members_remove): this connection's room list shows it as kept now.
  void membership_changed(const std::string& room);

  // The connection is gone: leave every room, stop the timers. Idempotent.
  void finish();

  // The hooks' "headers" (proxy::forwarded_headers_json of the request),
  // when a hook that sends them is configured.
  void set_forwarded_headers(std::string json) { setup_.forwarded_headers = std::move(json); }
  [[nodiscard]] const std::string& peer() const { return setup_.peer; }
  [[nodiscard]] const std::string& user() const { return user_; }
  [[nodiscard]] const std::string& id() const { return client_id_; }

 private:
  // connecting: the connect hook is deciding (no other command yet).
  enum class State : std::uint8_t {
    handshake,
    awaiting_connect,
    connecting,
    connected,
    closing,
    closed
  };
  // Carries out the SubscriptionTable's decisions (subscriptions.cpp).
  struct SubscriptionEffects;
  // A subscribe a subscription token granted: when the subscription ends
  // unless sub_refresh renews it (Unix seconds; nullopt: never).
  struct TokenGrant {
    std::optional<std::int64_t> expires;
  };
  // A connect reply held until its server-side subscriptions have their
  // broker answers.
  struct PendingConnect {
    std::uint32_t id = 0;
    std::optional<std::int64_t> expires;
    std::string data_json;
    std::vector<protocol::ServerSubscription> subs;
    std::size_t awaiting = 0;
  };

  // One handler per command (protocol/command.hpp's list), each defined in
  // the file of its family.
  // NOLINTBEGIN(cppcoreguidelines-macro-usage)
#define HERALD_DECLARE_RUN(T) void run(std::uint32_t id, protocol::T& cmd);
  HERALD_CLIENT_COMMANDS(HERALD_DECLARE_RUN, )
#undef HERALD_DECLARE_RUN
  // NOLINTEND(cppcoreguidelines-macro-usage)

  // subscription_tokens.cpp
  // A subscribe with a subscription token: verified, then subscribed with
  // its grant (no subscribe hook, the token's info, its expiry).
  void subscribe_with_token(std::uint32_t id, protocol::SubscribeCmd& cmd);
  // The claims of a subscription token for `room`, or nullopt once it has
  // answered `id` (expired 109, invalid 103) or, for a token of another
  // room, user or client, closed the connection (3501).
  std::optional<auth::Claims> verified_subscription(std::uint32_t id, const std::string& room,
                                                    std::string_view token);
  // A token-granted subscription joined the room (`grant`), or any
  // subscription left it (nullopt).
  void track_token_subscription(const std::string& room, std::optional<TokenGrant> grant);
  // The timer that ends token-granted subscriptions past their expiry (and
  // Setup::refresh_grace) with an unsubscribe push (2501): armed for the
  // earliest.
  void arm_subscription_expiry();
  void expire_subscriptions();

  // connect.cpp
  void proxy_connect(std::uint32_t id, protocol::ConnectCmd& cmd);
  void on_connect_answer(std::uint32_t id, proxy::BackendAnswer& answer,
                         const protocol::RoomPositions& since);
  // Whether the client refreshes its own expiry (a token's, with the
  // refresh command) rather than the refresh hook doing it for the client.
  [[nodiscard]] bool refreshes_itself() const;
  // Takes `identity` as the connection's (user, token claims) and names
  // the connection: its client id and its info.
  void adopt(Identity identity);
  // The identity is settled: state connected, the expiry enforced, the
  // server-side subscriptions (`rooms`) made, from `since` where the client
  // gave a position, the reply sent once they are.
  // `refused`: rooms already refused, which the reply lists beside the
  // others.
  void complete_connect(std::uint32_t id, std::optional<std::int64_t> expires_at,
                        std::string_view data_json, const std::vector<std::string>& rooms,
                        const protocol::RoomPositions& since,
                        std::vector<protocol::ServerSubscription> refused = {});
  // The connection ends at `ends` (Unix seconds; the refresh hook is asked
  // first when there is one), or never: nullopt cancels the wait.
  void arm_expiry(std::optional<std::int64_t> ends);
  // A server-side subscription's answer; the connect reply goes out with
  // the last.
  void server_side_subscription_done(protocol::ServerSubscription sub);
  // One room of the connect's server-side list (command id 0).
  void subscribe_server_side(const std::string& room, SubscriptionTable::Since from,
                             SubscriptionTable::Args args = {});

  // subscriptions.cpp
  // A subscribe whose checks passed, handed to the table.
  void subscribe_in_table(std::uint32_t id, protocol::SubscribeCmd& cmd,
                          SubscriptionTable::Args args);
  // The client's info in `room`: its info with its chan_info there.
  [[nodiscard]] std::string info_in(const std::string& room) const;
  // `grant`: set when a subscription token granted the subscribe.
  void subscribe_with_broker(const std::string& room, SubscriptionTable::Since since,
                             SubscriptionFlags flags, std::string_view chan_info_json,
                             std::string backend_data, std::optional<TokenGrant> grant = {});
  void proxy_subscribe(const std::string& room, SubscriptionTable::Since since,
                       SubscriptionFlags flags, const std::string& client_data);
  void on_subscribe_answer(const std::string& room, SubscriptionTable::Since since,
                           SubscriptionFlags flags, proxy::BackendAnswer& answer);
  void refuse_subscription(const std::string& room, protocol::BrokerError error);
  // Replies not_subscribed and returns false unless `room` is subscribed.
  bool is_active_subscription(std::uint32_t id, const std::string& room);

  // publish.cpp
  void publish_to_broker(std::uint32_t id, std::string room, std::string data,
                         bool skip_history = false);
  void proxy_publish(std::uint32_t id, protocol::PublishCmd& cmd);
  void on_publish_answer(std::uint32_t id, std::string room, std::string data,
                         proxy::BackendAnswer& answer);

  // presence.cpp: presence and presence_stats ask the same.
  void ask_presence(std::uint32_t id, std::string& room, bool stats);

  // rpc.cpp
  void on_backend_answer(std::uint32_t id, std::string_view hook, proxy::BackendAnswer& answer);
  // An answer other than a result: relays the error, disconnects, or
  // replies 116 naming the failure. The one place every hook's non-result
  // answers are handled.
  void on_backend_refusal(std::uint32_t id, std::string_view hook, proxy::BackendAnswer& answer);
  // herald_proxy_errors_total{hook,kind="bad_answer"}.
  void count_bad_answer(proxy::HookKind hook);

  // client.cpp
  // Checks name and permission (check_private too); on failure replies
  // and returns false.
  bool check_room(std::uint32_t id, const std::string& room);
  // A private room is used (history, presence, publish) only through its
  // subscription; on failure replies 103 and returns false.
  bool check_private(std::uint32_t id, const std::string& room);
  // Takes a token from `bucket`; without one, replies 111 naming `setting`.
  bool within_rate(std::uint32_t id, limits::TokenBucket& bucket, std::string_view setting);
  // client.publish_rate, per connection or per user (Setup).
  bool within_publish_rate(std::uint32_t id);
  // Replies 111 "over <setting> (<rate>/s, burst <burst>)"; returns false.
  bool refuse_over_rate(std::uint32_t id, std::string_view setting, std::uint64_t rate,
                        std::uint64_t burst);
  // Why `room` is refused to this client for want of `hook` (subscribe or
  // publish): its namespace needs the hook and the transport asks none
  // (Setup::asks_hooks). nullopt: the hook is not needed, or is asked.
  [[nodiscard]] std::optional<protocol::BrokerError> unasked_hook(proxy::HookKind hook,
                                                                  const std::string& room) const;
  void reply(std::uint32_t id, const protocol::Reply& reply);
  void reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message);
  [[nodiscard]] std::shared_ptr<void> hold() const {
    return owner_.lock();
  }
  [[nodiscard]] proxy::BackendClient* backend(proxy::HookKind hook) const;

  CoreContext& core_;
  ShardCore& shard_core_;  // this client's shard
  Output& out_;
  Setup setup_;
  std::weak_ptr<void> owner_;
  State state_kind_ = State::handshake;
  boost::asio::steady_timer connect_timer_;  // client.connect_timeout
  SessionExpiry expiry_;                     // token exp / expire_at, and the refresh hook
  proxy::AnswersInOrder publish_answers_;    // publish hook answers, acted on in send order

  std::string client_id_;
  std::string user_;
  std::string info_json_;
  std::optional<auth::Claims> claims_;
  // Centrifugo's meta (its token's, or the connect hook's): every hook
  // request for this connection carries it (proxy/request_meta.hpp).
  std::string meta_json_;
  std::optional<PendingConnect> pending_connect_;
  // Per room: none, pending (with the commands waiting for the broker's
  // answer), active (client/subscription_table.hpp).
  SubscriptionTable subscriptions_;
  // The live room list, from the first rooms.watch on (null before: a
  // client that does not watch pays nothing for it).
  std::unique_ptr<RoomListFeed> room_list_;
  // rooms.watch: each listed room's tail is read first, so the first
  // Reset shows every room's last message; a later watch supersedes it.
  std::uint64_t watch_generation_ = 0;
  // The room list's diffs since the last write, pushed now (before_write,
  // and changes that no write of the connection's own follows).
  void push_room_list();
  // Reads `room`'s tail from the broker (its stream's top and last
  // publication: one history read), then runs `then` unless the client
  // has finished.
  void history_tail(const std::string& room,
                    std::function<void(const protocol::HistoryResult&)> then);
  // Reads `room`'s tail into the room list, then runs `then` (also when
  // the read failed).
  void read_tail(const std::string& room, std::function<void()> then);
  // Whether membership changes are kept (state.dir, in a server).
  [[nodiscard]] bool keeps_memberships() const;
  // A membership change of the room list's commands (rooms.read,
  // rooms.tag, rooms.mark_unread, rooms.notify): kept, answered once
  // committed, then the user's other connections told.
  // rooms.join and rooms.leave: with self_too, this connection re-reads
  // the record too (its list has not changed yet).
  void keep(std::uint32_t id, std::string_view command, const std::string& room,
            state::Change change, bool self_too = false);
  // What a kept change's outcome tells the client, when it is a refusal.
  [[nodiscard]] std::optional<protocol::BrokerError> refusal_of(state::Outcome outcome,
                                                                const std::string& room) const;
  // rooms.join, rooms.leave: where the namespace lets clients (or for an
  // invitation), the membership kept, then shown on every connection of
  // the user.
  void change_membership(std::uint32_t id, std::string_view command, const std::string& room,
                         state::Change change);
  // The room list's follows (room_list_follows.cpp): each membership
  // listed and not subscribed here, delivered to the list only. joined:
  // in the hub (the broker answered); generation: which follow an answer
  // is for.
  struct Follow {
    std::uint64_t generation = 0;
    bool joined = false;
  };
  std::unordered_map<std::string, Follow> follows_;
  std::uint64_t follow_generation_ = 0;
  bool room_list_push_posted_ = false;  // a push of the list at the end of this turn
  // Follows `room` (nothing if it is followed already), then reads its
  // tail; `then` runs after (also when the follow was refused).
  void follow(const std::string& room, std::function<void()> then);
  // Ends the room's follow, if any.
  void unfollow(const std::string& room);
  void unfollow_all();
  // A delivery to a followed room: given to the list only (true), or not
  // a follow's (false).
  bool deliver_to_follow(const std::string& room, const fanout::MessagePtr& message);
  // Whether `room` is followed and in the hub (its deliveries are the
  // list's).
  [[nodiscard]] bool is_followed(const std::string& room) const;
  // A followed room whose stream was reset, followed anew (stream_lost,
  // on the turn after).
  void follow_again(const std::string& room);
  // Whether the user is a member of `room`: as the room list has it, or
  // as kept when this connection does not watch.
  [[nodiscard]] bool is_member(const std::string& room) const;
  // rooms.tag, rooms.mark_unread, rooms.notify: the change shown on this
  // connection's list; for a membership, kept (keep) too. A room that is
  // neither a membership nor a subscription here is refused.
  void change_flags(std::uint32_t id, std::string_view command, state::SetFlags change);
  // client.publish_rate for publish; client.command_rate for every other
  // command after connect.
  limits::TokenBucket publish_rate_;
  limits::TokenBucket command_rate_;
  // Subscriptions a subscription token granted, until left: when each
  // ends unless sub_refresh renews it (Unix seconds; nullopt: never).
  std::unordered_map<std::string, std::optional<std::int64_t>> token_rooms_;
  boost::asio::steady_timer subscription_expiry_timer_;
  // Rooms subscribed by the server (complete_connect), until left: a lost
  // stream there is recovered by reconnecting (Setup).
  std::unordered_set<std::string> server_side_rooms_;
  // The client's chan_info in each room that gave it one, from its
  // broker subscribe until the broker refuses it or is told to undo it: a
  // new info (server_refresh) makes each presence entry anew from it.
  std::unordered_map<std::string, std::string> chan_infos_;
  // Over the same span, the rooms whose broker pushes this client's join
  // and leave (SubscriptionFlags::announced): its leave is sent with the
  // info the client has then.
  std::unordered_set<std::string> announced_rooms_;
  // Rooms joined in the hub whose join and leave pushes this client is
  // not sent (SubscriptionFlags::hears_join_leave false), until left.
  std::unordered_set<std::string> deaf_rooms_;
  // Rooms whose stream was lost, handled on the next turn by
  // lost_streams_timer_: a subscription's is unsubscribed (its deliveries
  // are dropped until then), a follow's (true) followed again.
  std::unordered_map<std::string, bool> lost_rooms_;
  boost::asio::steady_timer lost_streams_timer_;
  bool finished_ = false;
  bool counted_ = false;        // in the census as connected: undone by finish()
  bool slow_consumer_ = false;  // close_slow_consumer ran: its close is posted
};

}  // namespace herald::gateway::client
