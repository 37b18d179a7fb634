// One WebSocket client's protocol session: connect, subscriptions,
// commands, replies and pushes, and when to disconnect with which code.
// Lives on one shard; every member function runs on that shard's thread.
//
// The bytes are its WsConnection's (ws/ws_connection.hpp): the socket, the
// RFC 6455 framing, the outbound queue and the close handshake. The session
// decides what to send and when to close; the connection decides how. The
// queue is bounded here, as protocol policy: a client whose backlog would
// pass client.max_queue_bytes (or whose pongs would) is a slow consumer and
// is closed with 3002 (reconnect and recover).
#pragma once

#include <boost/asio/steady_timer.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/auth/token.hpp"
#include "gateway/client_stream.hpp"
#include "gateway/detail/server_state.hpp"
#include "gateway/frame.hpp"
#include "gateway/http_router.hpp"
#include "gateway/limits/connections_per_ip.hpp"
#include "gateway/limits/token_bucket.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/proxy/answers_in_order.hpp"
#include "gateway/rooms/room_list_feed.hpp"
#include "gateway/subscriber.hpp"
#include "gateway/ws/session_expiry.hpp"
#include "gateway/ws/subscription_table.hpp"
#include "gateway/ws/ws_connection.hpp"

namespace herald::gateway {

class WsSession final : public std::enable_shared_from_this<WsSession>,
                        public Subscriber,
                        private WsConnection::Owner {
 public:
  // `lease` is the connection's slot of server.max_connections_per_ip,
  // held until the session ends.
  WsSession(ClientStream&& stream, ConnectionsPerIp::Lease lease, detail::ServerState& state,
            unsigned shard);
  ~WsSession();
  WsSession(const WsSession&) = delete;
  WsSession& operator=(const WsSession&) = delete;

  // Completes the upgrade for `request` (already known to be one).
  void start(const HttpRequest& request);

  // Queues a frame for this client (a push from the hub, or a reply:
  // `replied`).
  void enqueue(const FramePtr& frame, bool replied = false);
  // Subscriber: a push from the hub: enqueued, and a publication also
  // updates the room list when the client watches it.
  void deliver(const std::string& room, const FramePtr& frame) override;
  // Subscriber: sends a disconnect push (unless the queue is being
  // dropped), then a close frame with the code, and ends the connection.
  void disconnect(protocol::DisconnectCode code) override;
  // The same with a code and reason of the application backend's
  // (4000..4999; docs/backend.md).
  void disconnect(std::uint16_t code, std::string_view reason, bool reconnect);

  [[nodiscard]] const std::string& user() const { return user_; }

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
  // A connect reply held until the server-side subscriptions it lists have
  // their broker answers (each adds its position or error to `subs`).
  struct PendingConnectReply {
    std::uint32_t id = 0;
    std::string result;  // the reply's object so far, without its closing brace
    std::string subs;    // "room":{...} entries, comma-separated
    std::size_t awaiting = 0;
  };
  // Carries out the SubscriptionTable's decisions (defined in the .cpp).
  struct SubscriptionEffects;

  // WsConnection::Owner.
  void on_open() override;
  void on_text(std::string_view message) override;
  void on_binary() override;
  void before_write() override;
  void on_overflow() override;
  void on_closed() override;

  void handle_line(std::string_view line);
  void handle(protocol::Command& cmd);
  void on_connect(std::uint32_t id, protocol::ConnectCmd& cmd);
  // A connect without a token, with proxy.connect_url set: the backend
  // names the user (proxy/connect_hook.hpp).
  void proxy_connect(std::uint32_t id, protocol::ConnectCmd& cmd);
  void on_connect_answer(std::uint32_t id, proxy::BackendAnswer& answer,
                         const protocol::RoomPositions& since);
  // The identity is settled: state connected, the expiry enforced, the
  // server-side subscriptions (`rooms`) made, from `since` where the client
  // gave a position, the reply sent once they are.
  void complete_connect(std::uint32_t id, std::optional<std::int64_t> expires_at,
                        std::string_view data_json, const std::vector<std::string>& rooms,
                        const protocol::RoomPositions& since);
  // A server-side subscription's answer: `entry_json` is its position or
  // error; the connect reply goes out with the last.
  void server_side_subscription_done(const std::string& room, std::string_view entry_json);
  void on_subscribe(std::uint32_t id, protocol::SubscribeCmd& cmd);
  // The broker subscribe the table asked for (SubscriptionEffects), with
  // the subscribe hook's chan info and data when it was asked.
  void subscribe_with_broker(const std::string& room, SubscriptionTable::Since since,
                             std::string_view chan_info_json, std::string backend_data);
  // subscribe_proxy: the backend decides before the broker is asked; its
  // refusal answers the table as a broker error would.
  void proxy_subscribe(const std::string& room, SubscriptionTable::Since since,
                       const std::string& client_data);
  void on_subscribe_answer(const std::string& room, SubscriptionTable::Since since,
                           proxy::BackendAnswer& answer);
  void refuse_subscription(const std::string& room, BrokerError error);
  void on_unsubscribe(std::uint32_t id, protocol::UnsubscribeCmd& cmd);
  void on_publish(std::uint32_t id, protocol::PublishCmd& cmd);
  void publish_to_broker(std::uint32_t id, std::string room, std::string data,
                         bool skip_history = false);
  // publish_proxy: the backend sees the publication first and may refuse
  // it or replace its data (proxy/room_hooks.hpp). Its answers are acted
  // on in the order the publications came (publish_answers_).
  void proxy_publish(std::uint32_t id, protocol::PublishCmd& cmd);
  void on_publish_answer(std::uint32_t id, std::string room, std::string data,
                         proxy::BackendAnswer& answer);
  // herald_proxy_errors_total{hook,kind="bad_answer"}: a result that does
  // not read as the hook's shape.
  void count_bad_answer(proxy::HookKind hook);
  void on_history(std::uint32_t id, protocol::HistoryCmd& cmd);
  void on_presence(std::uint32_t id, protocol::PresenceCmd& cmd, bool stats);
  void on_rooms_watch(std::uint32_t id, const protocol::RoomsWatchCmd& cmd);
  void on_rooms_page(std::uint32_t id, const protocol::RoomsPageCmd& cmd);
  void on_rooms_read(std::uint32_t id, const protocol::RoomsReadCmd& cmd);
  void on_rooms_tag(std::uint32_t id, const protocol::RoomsTagCmd& cmd);
  // Posts to proxy.rpc_url; the answer comes back on this shard, and is
  // dropped if the session finished meanwhile (the request holds a weak
  // reference: a stalled backend keeps no closed session alive).
  void on_rpc(std::uint32_t id, protocol::RpcCmd& cmd);
  void on_backend_answer(std::uint32_t id, std::string_view hook, proxy::BackendAnswer& answer);
  // An answer other than a result: relays the error, disconnects, or
  // replies 116 naming the failure. The one place every hook's non-result
  // answers are handled.
  void on_backend_refusal(std::uint32_t id, std::string_view hook, proxy::BackendAnswer& answer);
  // Replies not_subscribed and returns false unless `room` is subscribed.
  bool is_active_subscription(std::uint32_t id, const std::string& room);
  // This shard's local subscribers of `room` (the hub): add or remove this
  // session. Called only by SubscriptionEffects.
  void join_hub(const std::string& room);
  void leave_hub(const std::string& room);
  // Checks name and permission; on failure replies and returns false.
  bool check_room(std::uint32_t id, const std::string& room);
  // Takes a token from `bucket`; without one, replies 111 naming `setting`
  // and returns false.
  bool within_rate(std::uint32_t id, TokenBucket& bucket, std::string_view setting);

  void reply(std::uint32_t id, std::string_view result_json);
  void reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message);

  // Closes at once with `code`, dropping what no write has started.
  void close_now(protocol::DisconnectCode code);
  // Over client.max_queue_bytes: 3002, counted and logged; `what` was owed.
  void close_slow_consumer(std::string_view what);
  void finish();  // leave every room, release shard state; idempotent

  detail::ServerState& state_;
  detail::ShardState& shard_state_;
  unsigned shard_;
  State state_kind_ = State::handshake;
  // The client's address, for the connect hook's X-Forwarded-For; read
  // before connection_ takes the stream.
  std::string peer_;
  boost::asio::steady_timer connect_timer_;  // client.connect_timeout
  SessionExpiry expiry_;                     // token exp / expire_at, and the refresh hook
  proxy::AnswersInOrder publish_answers_;    // publish hook answers, acted on in send order
  WsConnection
      connection_;  // after connect_timer_: takes the stream that timer's executor is read from

  // Identity and subscriptions.
  std::string client_id_;
  std::string user_;
  std::string info_json_;
  std::optional<auth::Claims> claims_;
  // The connect and refresh hooks' "headers" (empty without them).
  std::string forwarded_headers_;
  std::optional<PendingConnectReply> pending_connect_;
  // Per room: none, pending (with the commands waiting for the broker's
  // answer), active (ws/subscription_table.hpp).
  SubscriptionTable subscriptions_{state_.options.client.max_subscriptions,
                                   state_.options.client.max_pending_per_room};
  // The live room list, from the first rooms.watch on (null before: a
  // client that does not watch pays nothing for it).
  std::unique_ptr<RoomListFeed> room_list_;

  // client.publish_rate for publish; client.command_rate for every other
  // command after connect.
  TokenBucket publish_rate_;
  TokenBucket command_rate_;
  ConnectionsPerIp::Lease lease_;

  bool finished_ = false;
};

}  // namespace herald::gateway
