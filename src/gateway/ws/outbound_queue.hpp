// What one connection still owes its socket, in order: shared frames
// (replies and pushes) and control frames (pong, close).
//
// Data frames are sent as WebSocket text messages of one or more lines:
// everything queued when a message opens becomes that one message, its
// frames joined by '\n' (docs/protocol.md: split every frame on '\n'), behind
// a header built for that message. The payload bytes are the shared Message's
// own (encoded once per publication, never copied per recipient); gather()
// points iovecs at them and the connection hands those to one sendmsg.
// Control frames go out between messages, never inside one. With
// permessage-deflate negotiated, a message may instead be the frames'
// shared compressed bytes (enable_deflate()).
//
// Invariants:
// - backlog_bytes() == bytes of data frames pushed - bytes of data frames
//   fully written - bytes dropped, counting each frame as its text plus one
//   separator. The shard's gauge (herald_queue_bytes) moves by the same
//   amounts, here and nowhere else.
// - A message, once opened, is written to its end before anything else
//   (control frames, the next message): a half-written frame is never
//   abandoned, even when the queue is dropped for a close.
// - Storage is reused: steady traffic allocates nothing (the frame list
//   keeps its capacity; consumed entries are compacted, not freed).
// Single-threaded: the connection's shard owns it.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/fanout/message.hpp"
#include "gateway/ws/frame_header.hpp"

namespace herald::gateway::ws {

class OutboundQueue {
 public:
  // `shard_gauge` is the shard's queued-bytes total (read by /metrics).
  explicit OutboundQueue(std::atomic<std::int64_t>& shard_gauge) : gauge_(&shard_gauge) {}
  ~OutboundQueue();
  OutboundQueue(const OutboundQueue&) = delete;
  OutboundQueue& operator=(const OutboundQueue&) = delete;

  // A frame's weight in backlog_bytes().
  [[nodiscard]] static std::int64_t weight(const fanout::Message& f) {
    return static_cast<std::int64_t>(f.text.size() + 1);
  }

  // From now on messages may be compressed (permessage-deflate was
  // negotiated): each message that is smaller compressed goes compressed,
  // as the concatenation of its frames' shared compressed bytes
  // (Message::deflated, ws/deflate_codec.hpp says why that is one valid
  // message). backlog_bytes() keeps counting the plain text.
  void enable_deflate() { deflate_ = true; }

  void push(fanout::MessagePtr frame);
  // A complete control frame (frame_header.hpp), sent at the next message
  // boundary.
  void push_control(std::string_view wire);
  // Drops the data frames no message holds yet (a slow consumer, a close),
  // and the control frames if none of them has started; the open message,
  // if any, is still written out.
  void drop_queued();

  [[nodiscard]] std::int64_t backlog_bytes() const { return backlog_; }
  // Control frames queued and not yet written (pongs a client has not read).
  [[nodiscard]] std::size_t control_bytes() const { return control_.size() - control_written_; }
  // Data frames pushed and not yet in a message: more may be appended.
  [[nodiscard]] bool has_queued_data() const { return message_end_ < frames_.size(); }
  // Nothing at all left to write.
  [[nodiscard]] bool empty() const { return !open_ && control_.empty() && head_ == frames_.size(); }

  // Fills `iov` with the next bytes to write (opening a message from the
  // queued frames when none is open) and returns how many entries it used
  // (0: nothing to write). At most one message or one run of control
  // frames per call. The memory stays valid until the next push/consume.
  std::size_t gather(std::span<iovec> iov);

  struct Written {
    std::size_t frames = 0;             // data frames completed
    std::int64_t oldest_published = 0;  // their oldest published_ns (0: none)
  };
  // `bytes` of what the last gather() offered went to the socket.
  Written consume(std::size_t bytes);

 private:
  void open_message();
  // Piece p of the open message (the cursor's numbering below).
  [[nodiscard]] std::string_view piece(std::size_t p) const;
  void release(std::int64_t bytes);
  void compact();

  std::atomic<std::int64_t>* gauge_;
  // frames_[head_, message_end_) is the open message, [message_end_, size)
  // the queued frames; [0, head_) is spent, awaiting compaction.
  std::vector<fanout::MessagePtr> frames_;
  std::size_t head_ = 0;
  std::size_t message_end_ = 0;
  bool open_ = false;
  bool deflate_ = false;     // permessage-deflate was negotiated
  bool compressed_ = false;  // the open message is compressed (RSV1)
  FrameHeader header_;
  // Cursor in the open message: piece 0 is the header, piece 2k+1 the text
  // of its k-th frame, piece 2k+2 the separator before frame k+1.
  std::size_t piece_ = 0;
  std::size_t piece_offset_ = 0;
  std::string control_;
  std::size_t control_written_ = 0;
  std::int64_t backlog_ = 0;
};

}  // namespace herald::gateway::ws
