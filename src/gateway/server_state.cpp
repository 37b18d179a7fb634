#include "gateway/server_state.hpp"

#include "gateway/ws/write_cork.hpp"

namespace herald::gateway {

ShardState::ShardState(unsigned shard_index, boost::asio::io_context& ctx,
                       std::chrono::nanoseconds write_delay)
    : client::ShardCore(shard_index), cork(std::make_unique<ws::WriteCork>(ctx, write_delay)) {}

ShardState::~ShardState() = default;

}  // namespace herald::gateway
