#include "gateway/server_state.hpp"

#include "gateway/ws/write_cork.hpp"

namespace herald::gateway {

ShardState::ShardState(unsigned shard_index, boost::asio::io_context& ctx,
                       std::chrono::nanoseconds write_delay)
    : client::ShardCore(shard_index), cork(std::make_unique<ws::WriteCork>(ctx, write_delay)) {}

ShardState::~ShardState() = default;

broker::NodeStats ServerState::node_stats() const {
  const client::NodeCensus::Counts c = census.counts();
  return {c.clients, c.users, c.rooms, c.subscriptions, started_unix_s, HERALD_VERSION};
}

}  // namespace herald::gateway
