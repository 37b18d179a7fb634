#include "gateway/ws/write_cork.hpp"

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/post.hpp>

#include "gateway/ws/ws_connection.hpp"

namespace herald::gateway::ws {
namespace asio = boost::asio;

WriteCork::WriteCork(asio::io_context& ctx, std::chrono::nanoseconds delay)
    : ctx_(ctx), delay_(delay), timer_(std::make_unique<asio::steady_timer>(ctx)) {}

void WriteCork::stop() {
  timer_.reset();  // a pending wait is cancelled; its handler never runs a drain
}

std::size_t WriteCork::add(WsConnection* connection, bool replied) {
  if (!scheduled_) schedule();
  std::vector<WsConnection*>& list = replied ? replied_ : pushed_;
  list.push_back(connection);
  return list.size() | (replied ? kRepliedBit : 0);
}

void WriteCork::cancel(std::size_t slot) {
  std::vector<WsConnection*>& list = is_replied(slot) ? replied_ : pushed_;
  const std::size_t index = slot & ~kRepliedBit;
  if (index != 0 && index <= list.size()) list[index - 1] = nullptr;
}

void WriteCork::schedule() {
  scheduled_ = true;
  if (delay_.count() > 0) {
    if (!timer_) return;  // stopped: the shard is going away
    timer_->expires_after(delay_);
    timer_->async_wait(
        asio::bind_allocator(HandlerAllocator<int>(memory_), [this](boost::system::error_code ec) {
          if (!ec) drain();
        }));
  } else {
    // To the io_context's own executor, not a type-erased one: through
    // any_io_executor a post allocates twice more.
    asio::post(ctx_.get_executor(),
               asio::bind_allocator(HandlerAllocator<int>(memory_), [this] { drain(); }));
  }
}

void WriteCork::drain() {
  scheduled_ = false;
  drain_list(replied_, draining_);
  drain_list(pushed_, draining_);
}

void WriteCork::drain_list(std::vector<WsConnection*>& list, std::vector<WsConnection*>& spare) {
  // Connections added by the flushes below (none today) go to the next
  // drain, which add() schedules.
  spare.swap(list);
  for (WsConnection* s : spare) {
    if (s == nullptr) continue;  // destroyed since it was added
    s->corked_flush();
  }
  spare.clear();
}

}  // namespace herald::gateway::ws
