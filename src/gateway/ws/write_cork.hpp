// The shard's cork: connections that have output waiting, written together
// once the handlers running now are done.
//
// uWebSockets' lesson: what is queued for a socket during one event-loop
// turn should leave in one send at the end of the turn. asio has no
// end-of-turn hook, so the cork posts one drain to the shard's io_context
// when its first connection is added: every handler already queued (the
// deliveries of the other publications in flight, the replies to a frame of
// commands) runs first and adds to the same connections, and the drain then
// flushes each of them once. One post per shard per turn instead of one per
// connection, and no asynchronous write at all while the kernel takes the
// bytes (WsConnection::flush writes with a non-blocking sendmsg). Under load
// the batching grows by itself: the longer a drain takes, the more
// publications queue behind it and ride in the next one.
//
// Replies first: a connection that was sent a reply (an answer to one of
// its commands) is flushed before connections that only got pushes. A
// windowed publisher sends its next publications as soon as it reads its
// acknowledgements, so acking before writing a large fan-out lets those
// publications travel while the fan-out is written, and the next drain
// carries them all at once (uWebSockets gets the same order because a
// socket's own replies leave at the end of its read handler, before the
// pub/sub drain). Measured on G2, 1 room x 10,000, window 8, alternating:
// one list 3.98 messages per write, replies first 7.94, and 1.6-1.9x the
// deliveries per CPU-second (docs/benchmarks.md, G2 notes).
//
// With client.write_delay > 0 the drain waits that long instead, trading
// latency for larger batches.
//
// Lifetime: the cork holds raw pointers. A connection that is added keeps a
// slot number and cancels it when it is destroyed (WsConnection's destructor),
// and the drain clears each slot before it calls flush(), so no dangling
// pointer is ever called. A connection is in at most one list. Single-
// threaded: the shard's thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "gateway/ws/handler_memory.hpp"

namespace herald::gateway::ws {

class WsConnection;

class WriteCork {
 public:
  WriteCork(boost::asio::io_context& ctx, std::chrono::nanoseconds delay);
  WriteCork(const WriteCork&) = delete;
  WriteCork& operator=(const WriteCork&) = delete;

  // Queues `connection` for the next drain, among the replied-to ones first
  // when `replied`; returns its slot (never 0).
  [[nodiscard]] std::size_t add(WsConnection* connection, bool replied);
  // Forgets the connection in `slot` (a slot add() returned and the drain has
  // not reached yet).
  void cancel(std::size_t slot);
  // The slot is in the replied-to list.
  [[nodiscard]] static bool is_replied(std::size_t slot) { return (slot & kRepliedBit) != 0; }

  // Cancels a pending drain and destroys the timer. The owner calls it
  // before the shard's io_context goes: the timer may not outlive the
  // io_context, while the cork must outlive the connections it lists, which
  // the io_context's pending handlers can hold until it is destroyed.
  void stop();

 private:
  static constexpr std::size_t kRepliedBit = std::size_t{1} << 63;

  void schedule();
  void drain();
  void drain_list(std::vector<WsConnection*>& list, std::vector<WsConnection*>& spare);

  boost::asio::io_context& ctx_;
  std::chrono::nanoseconds delay_;
  std::unique_ptr<boost::asio::steady_timer> timer_;  // null after stop()
  std::vector<WsConnection*> replied_;                // flushed first
  std::vector<WsConnection*> pushed_;                 // then these
  std::vector<WsConnection*> draining_;  // swapped with a list while it drains: all keep capacity
  bool scheduled_ = false;
  HandlerMemory memory_;  // the drain's post or timer wait
};

}  // namespace herald::gateway::ws
