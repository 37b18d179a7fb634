// One Server-Sent Events stream (GET /sse): a client that cannot open a
// WebSocket follows rooms over a plain HTTP response that never ends. The
// HTTP session hands over its stream (plain or TLS: client_stream.hpp), as
// it does for a WebSocket upgrade, once the request is checked
// (sse/stream_request.hpp); from then on this session owns it. Lives on
// one shard; every member runs on its thread.
//
// It is a subscriber like a WebSocket session (gateway/fanout/subscriber.hpp):
// the same hub, the same broker calls, the same presence entry, the same
// moderated frames. And it keeps the same ordering contract
// (broker/broker.hpp): each room joins the hub when its subscribe callback
// runs, and the result's publications are written before any delivered
// after, so every publication is written once, in order.
//
// The wire (docs/protocol.md, "Server-Sent Events"): at once the response
// head and a ": ok" comment; when every room's subscribe has answered, the
// opening events (connected, then subscribed, refused or recovery per
// room); then each push the room gets. What each event says is the codec's
// (codec/herald_sse.hpp); this session frames, identifies and writes them.
// The opening events and every in-stream publication carry an id: the
// positions of all the stream's rooms (sse/stream_id.hpp). A publication
// outside the stream carries none, so the client's position does not move.
// Until the opening, pushes are held in order (counted against the limit).
//
// Limits: what is queued and not yet written (formatted events, and pushes
// held before the opening) is bounded by client.max_queue_bytes; past it
// the stream is closed at once, as a WebSocket slow consumer is (counted
// in herald_slow_consumer_disconnects_total), and the client resumes from
// its last id. A comment every client.sse_heartbeat keeps proxies from
// closing a quiet stream and finds dead peers; a write that makes no
// progress for client.idle_timeout closes the stream. A token's exp ends
// the stream with a disconnect push (3003 token expired).
//
// The subscribe hook is not asked for an SSE stream (its request carries a
// client's subscribe data, which a stream has no way to send): the core
// refuses a room whose namespace needs it (Setup::asks_hooks), and the
// opening says so (not_available).
//
// Lifetime: shared; every pending operation (read, write, timers, a broker
// answer) holds it. The hub holds the core between join and leave;
// finish() leaves every room and runs before the destructor returns.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gateway/client/client.hpp"
#include "gateway/client/output.hpp"
#include "gateway/client_stream.hpp"
#include "gateway/fanout/message.hpp"
#include "gateway/limits/connections_per_ip.hpp"
#include "gateway/server_state.hpp"
#include "gateway/sse/stream_request.hpp"

namespace herald::gateway::sse {

class SseSession final : public std::enable_shared_from_this<SseSession>, private client::Output {
 public:
  // `lease`: the connection's slot of server.max_connections_per_ip.
  // `stream`: the request's connection, plain or TLS (client_stream.hpp).
  SseSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease, ServerState& state,
             unsigned shard, StreamRequest request);
  ~SseSession();
  SseSession(const SseSession&) = delete;
  SseSession& operator=(const SseSession&) = delete;

  // Writes the response head and subscribes every room. `http_version`:
  // the request's (10 or 11).
  void start(unsigned http_version);

 private:
  enum class RoomState : std::uint8_t { pending, joined, refused };
  struct Room {
    std::string name;
    std::optional<protocol::StreamPosition> since;  // from the client's last id
    RoomState state = RoomState::pending;
    protocol::StreamPosition position;  // the last publication written (joined)
    bool recovered = false;
    std::uint64_t top = 0;  // the subscribe result's offset
    std::optional<protocol::BrokerError> error;
  };

  // client::Output. The one reply is the opening's: every room answered.
  void reply(std::uint32_t id, const protocol::Reply& reply) override;
  void reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message) override;
  void push(const std::string& room, const fanout::MessagePtr& message) override;
  void disconnect(std::uint16_t code, std::string_view reason, bool reconnect) override;
  void close_now(protocol::DisconnectCode code) override;

  // Every room has answered: the opening events, each room's recovered
  // publications, then the held pushes.
  void open(const protocol::ConnectReply& reply);
  // One push as an event; an in-stream publication moves its room's
  // position and carries the id.
  void write_push(std::size_t room, const fanout::MessagePtr& message);
  // Appends one event; `with_id` adds the current positions.
  void append_event(std::string_view event, std::string_view data, bool with_id);
  // Bytes to write; over client.max_queue_bytes closes the stream.
  void queue(std::string_view bytes);
  // Past client.max_queue_bytes by `what` (a literal): writes nothing more
  // and tells the core, which closes the stream as a slow consumer on a
  // turn of its own (Client::close_slow_consumer).
  void overflow(std::string_view what);
  [[nodiscard]] std::int64_t backlog_bytes() const;
  [[nodiscard]] std::size_t room_index(const std::string& room) const;

  void write_some();
  void on_written(boost::system::error_code ec, std::size_t bytes);
  void read_some();
  void arm_heartbeat();
  void on_heartbeat();
  void close_socket();
  void finish();  // leave every room, release shard state; idempotent

  ServerState& state_;
  ShardState& shard_state_;
  ClientStream stream_;
  // The TCP socket under stream_.
  boost::asio::ip::tcp::socket& socket() { return tcp_layer(stream_).socket(); }
  boost::asio::steady_timer heartbeat_;
  limits::ConnectionsPerIp::Lease lease_;
  const std::int64_t max_queue_bytes_;  // client.max_queue_bytes
  client::Client client_;
  client::Identity identity_;  // until start() hands it to the core

  std::vector<Room> rooms_;
  bool opened_ = false;
  // Pushes delivered before the opening, in order, with their room's index.
  std::vector<std::pair<std::size_t, fanout::MessagePtr>> held_;
  std::int64_t held_bytes_ = 0;

  // Output: `pending_` is formatted and not yet handed to the socket;
  // `writing_` is the write in flight. Both count in the shard's
  // queued-bytes gauge while they hold bytes.
  std::string pending_;
  std::string writing_;
  std::int64_t write_started_ns_ = 0;  // when the write in flight began
  bool wrote_since_tick_ = false;
  bool closing_ = false;     // a disconnect is queued: end after writing it
  bool overflowed_ = false;  // a slow consumer: nothing more is written
  bool finished_ = false;
  std::array<char, 512> discard_{};  // what the client sends after its request
};

}  // namespace herald::gateway::sse
