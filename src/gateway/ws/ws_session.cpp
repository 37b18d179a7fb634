#include "gateway/ws/ws_session.hpp"

#include "gateway/proxy/connect_hook.hpp"
#include "gateway/ws/outbound_queue.hpp"

namespace herald::gateway::ws {
namespace beast = boost::beast;
using protocol::DisconnectCode;

namespace {

client::Setup ws_setup(ClientStream& stream, const codec::Codec& codec, const Options& options) {
  client::Setup setup;
  boost::system::error_code ec;
  auto endpoint = tcp_layer(stream).socket().remote_endpoint(ec);
  if (!ec) setup.peer = endpoint.address().to_string();
  setup.asks_hooks = true;
  if (codec.unsubscribe_is_idempotent()) {
    setup.unsubscribe_absent = client::SubscriptionTable::Absent::succeeds;
  }
  setup.resubscribes_lost_streams = codec.resubscribes_lost_streams();
  if (codec.refreshes_at_expiry()) {
    // Whole seconds, rounded up: expiries are Unix seconds.
    setup.refresh_grace = std::chrono::ceil<std::chrono::seconds>(options.client.refresh_grace);
  }
  return setup;
}

}  // namespace

WsSession::WsSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease,
                     ServerState& state, unsigned shard, std::size_t endpoint)
    : WsSession(std::move(stream), std::move(lease), state, shard, endpoint,
                ws_setup(stream, *state.shards[shard]->codecs[endpoint], state.options),
                tcp_layer(stream).get_executor()) {}

WsSession::WsSession(ClientStream&& stream, limits::ConnectionsPerIp::Lease lease,
                     ServerState& state, unsigned shard, std::size_t endpoint, client::Setup setup,
                     const boost::asio::any_io_executor& executor)
    : state_(state),
      slot_(endpoint),
      codec_(*state.shards[shard]->codecs[endpoint]),
      connection_(std::move(stream), state, *state.shards[shard], *this),
      client_(state, *state.shards[shard], executor, *this, std::move(setup)),
      lease_(std::move(lease)) {
  state_.gw.ws_connections->add(1);
}

WsSession::~WsSession() {
  client_.finish();
  state_.gw.ws_connections->sub(1);
  state_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void WsSession::start(const http::HttpRequest& request) {
  if (state_.hooks[proxy::HookKind::connect] || state_.hooks[proxy::HookKind::refresh]) {
    client_.set_forwarded_headers(
        proxy::forwarded_headers_json(request, state_.forward_headers, client_.peer()));
  }
  connection_.start(request, weak_from_this());
}

void WsSession::on_open() {
  client_.start(weak_from_this());
}

void WsSession::on_text(std::string_view message) {
  if (client_.reading()) codec_.decode(message, *this);
}

bool WsSession::on_command(protocol::Command& command) {
  client_.execute(command);
  return client_.reading();
}

bool WsSession::on_refused(const protocol::CommandError& error) {
  client_.refuse(error);
  return client_.reading();
}

void WsSession::on_binary() {
  // Herald's protocols are text; a binary message is a client that does
  // not speak them.
  client_.disconnect(DisconnectCode::bad_request);
}

void WsSession::before_write() {
  client_.before_write();
}

void WsSession::on_overflow() {
  client_.close_slow_consumer("pongs not read", connection_.backlog_bytes());
}

bool WsSession::has_protocol_ping() const {
  return !codec_.ping_message().empty();
}

void WsSession::send_protocol_ping() {
  enqueue(fanout::make_message(std::string(codec_.ping_message())), false);
}

void WsSession::on_closed() {
  client_.finish();
  connection_.release();
}

void WsSession::reply(std::uint32_t id, const protocol::Reply& reply) {
  enqueue(fanout::make_message(codec_.encode_reply(id, reply)), true);
}

void WsSession::reply_error(std::uint32_t id, protocol::ErrorCode code, std::string_view message) {
  enqueue(fanout::make_message(codec_.encode_error(id, code, message)), true);
}

void WsSession::push(const std::string& /*room*/, const fanout::MessagePtr& message) {
  // The canonical message for Herald's codec; another codec's form made
  // once per message, whichever of its subscribers asks first.
  const fanout::MessagePtr& encoded = message->encoded(
      message, slot_, [this](std::string_view text) { return codec_.encode_push(text); });
  if (encoded->text.empty()) return;  // a push this protocol does not have
  enqueue(encoded, false);
}

void WsSession::disconnect(std::uint16_t code, std::string_view reason, bool reconnect) {
  if (closing_) return;
  // The push goes out with whatever is queued, then the close frame.
  enqueue(fanout::make_message(codec_.encode_disconnect(code, reason, reconnect)), false);
  if (overflowed_) return;  // the push itself overflowed: the core closes it as slow
  closing_ = true;
  codec::Codec::Close close = codec_.close_frame(code, reason);
  connection_.close_after_queue(close.code, close.reason);
}

void WsSession::close_now(DisconnectCode code) {
  if (closing_) return;
  closing_ = true;
  // Safety: DisconnectCode's underlying type is std::uint16_t.
  codec::Codec::Close close =
      codec_.close_frame(static_cast<std::uint16_t>(code), protocol::disconnect_reason(code));
  connection_.close_dropping_queue(close.code, close.reason);
}

void WsSession::enqueue(const fanout::MessagePtr& message, bool replied) {
  if (closing_ || overflowed_) return;
  // Safety: client.max_queue_bytes is at most 1 GiB (options.cpp).
  const auto max = static_cast<std::int64_t>(state_.options.client.max_queue_bytes);
  if (connection_.backlog_bytes() + OutboundQueue::weight(*message) > max) {
    return overflow("pushes and replies");
  }
  connection_.enqueue(message, replied);
}

void WsSession::overflow(std::string_view what) {
  overflowed_ = true;
  client_.close_slow_consumer(what, connection_.backlog_bytes());
}

}  // namespace herald::gateway::ws
