// One WebSocket client: its RFC 6455 connection (ws/ws_connection.hpp)
// under the client core (client/client.hpp), joined by the codec of the
// endpoint it upgraded on (codec/codec.hpp). This class only translates:
// text messages go through the codec into commands for the core; the
// core's replies and pushes go through the codec into the connection's
// queue. It decides nothing about commands, rooms or identities.
//
// The queue is bounded here, because only the transport knows what a
// message weighs on its wire: a client whose backlog would pass
// client.max_queue_bytes (or whose pongs would) is a slow consumer, and
// the core closes it with 3002 (reconnect and recover). The overflow is
// found inside a call of the core (a push, a reply): from then on nothing
// more is queued, so the client's stream has no hole, and the core, told
// at once, posts the close (Client::close_slow_consumer).
//
// Lives on one shard; every member runs on that shard's thread. Shared:
// every pending operation of the connection and of the core holds it.
#pragma once

#include <memory>
#include <string>

#include "gateway/client/client.hpp"
#include "gateway/client/output.hpp"
#include "gateway/client_stream.hpp"
#include "gateway/codec/codec.hpp"
#include "gateway/fanout/message.hpp"
#include "gateway/http/router.hpp"
#include "gateway/limits/connections_per_ip.hpp"
#include "gateway/server_state.hpp"
#include "gateway/ws/ws_connection.hpp"

namespace herald::gateway::ws {

class WsSession final : public std::enable_shared_from_this<WsSession>,
                        private WsConnection::Owner,
                        private client::Output,
                        private codec::CommandSink {
 public:
  // `lease` is the connection's slot of server.max_connections_per_ip,
  // held until the session ends. `endpoint`: the index of the endpoint the
  // client upgraded on (ServerState::ws_endpoints), which names its codec.
  WsSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease, ServerState& state,
            unsigned shard, std::size_t endpoint);
  ~WsSession();
  WsSession(const WsSession&) = delete;
  WsSession& operator=(const WsSession&) = delete;

  // Completes the upgrade for `request` (already known to be one).
  void start(const http::HttpRequest& request);

 private:
  // The public constructor's work, with what it reads of the stream before
  // the connection takes it: the peer's address and the executor.
  WsSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease, ServerState& state,
            unsigned shard, std::size_t endpoint, client::Setup setup,
            const boost::asio::any_io_executor& executor);

  // WsConnection::Owner.
  void on_open() override;
  void on_text(std::string_view message) override;
  void on_binary() override;
  void before_write() override;
  void on_overflow() override;
  void on_closed() override;
  [[nodiscard]] bool has_protocol_ping() const override;
  void send_protocol_ping() override;

  // codec::CommandSink.
  bool on_command(protocol::Command& command) override;
  bool on_refused(const protocol::CommandError& error) override;

  // client::Output.
  void reply(std::uint32_t id, const protocol::Reply& reply) override;
  void reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message) override;
  void push(const std::string& room, const fanout::MessagePtr& message) override;
  void disconnect(std::uint16_t code, std::string_view reason, bool reconnect) override;
  void close_now(protocol::DisconnectCode code) override;

  // Queues an encoded message, or finds a slow consumer instead.
  void enqueue(const fanout::MessagePtr& message, bool replied);
  // Past client.max_queue_bytes by `what` (a literal): queues nothing more
  // and tells the core.
  void overflow(std::string_view what);

  ServerState& state_;
  std::size_t slot_;     // the endpoint's codec slot in every Message
  codec::Codec& codec_;  // the shard's codec of that endpoint
  WsConnection connection_;
  client::Client client_;  // after connection_: its timers use the connection's executor
  limits::ConnectionsPerIp::Lease lease_;
  bool closing_ = false;     // a close is decided: nothing more is queued
  bool overflowed_ = false;  // a slow consumer: nothing more is queued
};

}  // namespace herald::gateway::ws
