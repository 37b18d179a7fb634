// One WebSocket client connection: the protocol state machine (connect,
// subscriptions, commands), and the outbound queue with coalesced writes.
// Lives on one shard; every member function runs on that shard's thread.
//
// Outbound path: replies and pushes are FramePtrs appended to queue_. A flush
// takes everything queued and writes it as ONE WebSocket text message (the
// frames joined by '\n') with one gather write, straight from the shared
// frames (no copy per recipient). Flushes run on the next loop turn after
// the first enqueue, or after client.write_delay when that is set, and while
// a write is in flight new frames wait for it, so bursts coalesce by
// themselves. The queue is bounded in bytes (client.max_queue_bytes, counting
// the write in flight); a client over it is a slow consumer and is closed
// with 3002 (reconnect and recover).
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gateway/auth/token.hpp"
#include "gateway/detail/server_state.hpp"
#include "gateway/frame.hpp"
#include "gateway/http_router.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/rooms/room_list_feed.hpp"
#include "gateway/ws/handler_memory.hpp"
#include "gateway/ws/subscription_table.hpp"

namespace herald::gateway {

class WsSession : public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(boost::beast::tcp_stream&& stream, detail::ServerState& state, unsigned shard);
  ~WsSession();
  WsSession(const WsSession&) = delete;
  WsSession& operator=(const WsSession&) = delete;

  // Completes the upgrade for `request` (already known to be one).
  void start(const HttpRequest& request);

  // Queues a frame for this client (a push from the hub, or a reply).
  void enqueue(const FramePtr& frame);
  // A push from the hub: enqueued, and a publication also updates the room
  // list when the client watches it.
  void deliver(const FramePtr& frame);
  // Sends a disconnect push (unless the queue is being dropped), then a
  // close frame with the code, and ends the connection.
  void disconnect(protocol::DisconnectCode code);

  [[nodiscard]] const std::string& user() const { return user_; }

 private:
  enum class State : std::uint8_t { handshake, awaiting_connect, connected, closing, closed };
  // Carries out the SubscriptionTable's decisions (defined in the .cpp).
  struct SubscriptionEffects;

  void read();
  void on_read(boost::beast::error_code ec);
  void handle_line(std::string_view line);
  void handle(protocol::Command& cmd);
  void on_connect(std::uint32_t id, protocol::ConnectCmd& cmd);
  void on_subscribe(std::uint32_t id, protocol::SubscribeCmd& cmd);
  void on_unsubscribe(std::uint32_t id, protocol::UnsubscribeCmd& cmd);
  void on_publish(std::uint32_t id, protocol::PublishCmd& cmd);
  void on_history(std::uint32_t id, protocol::HistoryCmd& cmd);
  void on_presence(std::uint32_t id, protocol::PresenceCmd& cmd, bool stats);
  void on_rooms_watch(std::uint32_t id, const protocol::RoomsWatchCmd& cmd);
  void on_rooms_page(std::uint32_t id, const protocol::RoomsPageCmd& cmd);
  void on_rooms_read(std::uint32_t id, const protocol::RoomsReadCmd& cmd);
  void on_rooms_tag(std::uint32_t id, const protocol::RoomsTagCmd& cmd);
  // Replies not_subscribed and returns false unless `room` is subscribed.
  bool is_active_subscription(std::uint32_t id, const std::string& room);
  // This shard's local subscribers of `room` (the hub): add or remove this
  // session. Called only by SubscriptionEffects.
  void join_hub(const std::string& room);
  void leave_hub(const std::string& room);
  // Appends to the outbound queue with its byte accounting (no flush).
  void append_to_queue(const FramePtr& frame);
  // Checks name and permission; on failure replies and returns false.
  bool check_room(std::uint32_t id, const std::string& room);
  bool take_publish_token();

  void reply(std::uint32_t id, std::string_view result_json);
  void reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message);

  void schedule_flush();
  void flush();
  void on_write(boost::beast::error_code ec, std::size_t bytes);
  void close_now(protocol::DisconnectCode code);
  void finish();  // leave every room, release shard state; idempotent

  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
  boost::beast::flat_buffer read_buffer_;
  detail::ServerState& state_;
  detail::ShardState& shard_state_;
  unsigned shard_;
  State state_kind_ = State::handshake;

  // Outbound.
  std::vector<FramePtr> queue_;  // swapped with inflight_: both keep their capacity
  std::vector<FramePtr> inflight_;
  std::vector<boost::asio::const_buffer> inflight_buffers_;
  std::int64_t backlog_bytes_ = 0;  // queue_ + inflight_
  bool writing_ = false;
  bool flush_scheduled_ = false;
  std::optional<protocol::DisconnectCode> close_after_flush_;
  HandlerMemory write_memory_;  // the flush post, the write and its completion
  boost::asio::steady_timer write_timer_;
  boost::asio::steady_timer connect_timer_;

  // Identity and subscriptions.
  std::string client_id_;
  std::string user_;
  std::string info_json_;
  std::optional<auth::Claims> claims_;
  // Per room: none, pending (with the commands waiting for the broker's
  // answer), active (ws/subscription_table.hpp).
  SubscriptionTable subscriptions_{state_.options.client.max_subscriptions,
                                   state_.options.client.max_pending_per_room};
  // The live room list, from the first rooms.watch on (null before: a
  // client that does not watch pays nothing for it).
  std::unique_ptr<RoomListFeed> room_list_;

  // Publish rate: a token bucket refilled at client.publish_rate per second.
  double publish_tokens_ = 0;
  std::int64_t tokens_at_ns_ = 0;

  bool finished_ = false;
};

}  // namespace herald::gateway
