// One WebSocket client connection: the protocol state machine (connect,
// subscriptions, commands) on top of its own RFC 6455 framing.
// Lives on one shard; every member function runs on that shard's thread.
//
// Beast performs the opening handshake; then the session owns the TCP
// socket. Reading: ws/frame_reader.hpp turns the bytes into messages and
// control frames. Writing: replies and pushes are FramePtrs appended to the
// OutboundQueue (ws/outbound_queue.hpp) and the session joins the shard's
// cork (ws/write_cork.hpp); when the cork drains, flush() hands everything
// queued to ONE non-blocking sendmsg, as one WebSocket message whose lines
// are the shared frames' own bytes. Only what the kernel does not take
// waits, for the socket to become writable; new frames join the queue
// meanwhile, so a slow socket gets larger writes by itself. The queue is
// bounded in bytes (client.max_queue_bytes, counting what is queued and not
// yet written); a client over it is a slow consumer and is closed with 3002
// (reconnect and recover).
//
// Closing follows RFC 6455 §7: our close frame goes after everything
// queued before it; then we wait (client.handshake_timeout) for the peer's
// close before closing the socket. A peer's close is echoed. A protocol
// error closes with 1002/1007/1009 as the frame reader says.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/auth/token.hpp"
#include "gateway/detail/server_state.hpp"
#include "gateway/frame.hpp"
#include "gateway/http_router.hpp"
#include "gateway/protocol/command.hpp"
#include "gateway/rooms/room_list_feed.hpp"
#include "gateway/ws/frame_reader.hpp"
#include "gateway/ws/handler_memory.hpp"
#include "gateway/ws/outbound_queue.hpp"
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

  // Queues a frame for this client (a push from the hub, or a reply:
  // `replied`).
  void enqueue(const FramePtr& frame, bool replied = false);
  // A push from the hub: enqueued, and a publication also updates the room
  // list when the client watches it.
  void deliver(const FramePtr& frame);
  // Sends a disconnect push (unless the queue is being dropped), then a
  // close frame with the code, and ends the connection.
  void disconnect(protocol::DisconnectCode code);
  // Called by the shard's cork (ws/write_cork.hpp) when it drains.
  void corked_flush();

  [[nodiscard]] const std::string& user() const { return user_; }

 private:
  enum class State : std::uint8_t { handshake, awaiting_connect, connected, closing, closed };
  // Carries out the SubscriptionTable's decisions (defined in the .cpp).
  struct SubscriptionEffects;

  void on_handshake(boost::beast::error_code ec);
  void read();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  // Acts on one event of the frame reader; false: stop reading input.
  bool on_frame(const ws::ReadResult& r);
  void on_idle_tick();
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
  // Checks name and permission; on failure replies and returns false.
  bool check_room(std::uint32_t id, const std::string& room);
  bool take_publish_token();

  void reply(std::uint32_t id, std::string_view result_json);
  void reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message);

  // Joins the shard's cork, once per drain; among the replied-to
  // connections, flushed first, when `replied` (write_cork.hpp says why).
  void schedule_flush(bool replied = false);
  void flush();
  // Writes what the queue holds until it is empty or the kernel is full.
  void write_now();
  void on_writable(boost::beast::error_code ec);
  // Everything, our close frame last, is written.
  void on_close_written();
  // Queues our close frame (code and reason) after what is queued.
  void send_close(std::uint16_t code, std::string_view reason);
  void close_now(protocol::DisconnectCode code);
  void close_socket();
  void finish();  // leave every room, release shard state; idempotent

  // The opening handshake only; null once the socket is ours.
  std::unique_ptr<boost::beast::websocket::stream<boost::beast::tcp_stream>> handshake_;
  boost::asio::ip::tcp::socket socket_;
  detail::ServerState& state_;
  detail::ShardState& shard_state_;
  unsigned shard_;
  State state_kind_ = State::handshake;

  // Inbound: bytes read and not yet parsed, [0, in_size_) of in_.
  std::vector<char> in_;
  std::size_t in_size_ = 0;
  ws::FrameReader reader_;
  HandlerMemory read_memory_;    // the read, always outstanding
  bool heard_ = false;           // anything read since the last idle tick
  bool ping_sent_ = false;       // an idle tick pinged; the next one closes
  bool reader_stopped_ = false;  // no read outstanding: a close was received or refused input
  boost::asio::steady_timer idle_timer_;

  // Outbound.
  ws::OutboundQueue out_;
  std::size_t cork_slot_ = 0;  // 0: not in the shard's cork
  bool waiting_writable_ = false;
  std::optional<protocol::DisconnectCode> close_after_flush_;
  std::optional<std::pair<std::uint16_t, std::string>> close_frame_;  // ours, once decided
  bool close_queued_ = false;                                         // our close frame is in out_
  bool close_written_ = false;                                        // ... and written
  bool close_received_ = false;  // the peer's close frame arrived
  HandlerMemory write_memory_;   // the writable wait
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
