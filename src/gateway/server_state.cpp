#include "gateway/server_state.hpp"

#include "gateway/ws/write_cork.hpp"

namespace herald::gateway {

ShardState::ShardState(boost::asio::io_context& ctx, std::chrono::nanoseconds write_delay)
    : cork(std::make_unique<WriteCork>(ctx, write_delay)) {}

ShardState::~ShardState() = default;

}  // namespace herald::gateway
