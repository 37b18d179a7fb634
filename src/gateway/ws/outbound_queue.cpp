#include "gateway/ws/outbound_queue.hpp"

#include <algorithm>

#include "gateway/ws/deflate_codec.hpp"

namespace herald::gateway::ws {
namespace {

constexpr std::string_view kSeparator = "\n";

// The separator compressed on its own, like a frame's text: the same bytes
// between any two compressed frames.
const std::string& deflated_separator() {
  static const std::string piece = deflate_piece(kSeparator);
  return piece;
}

// A frame's compressed form, made once whoever asks first
// (fanout/message.hpp) and shared by every compressing connection.
const std::string& deflated(const fanout::Message& frame) {
  return frame.deflated(deflate_piece);
}

iovec to_iovec(const char* data, std::size_t size) {
  // Safety: iovec's base is non-const for readv's sake; sendmsg only reads.
  return iovec{const_cast<char*>(data), size};
}

}  // namespace

OutboundQueue::~OutboundQueue() {
  // Whatever was never written leaves the shard's gauge with the queue.
  gauge_->fetch_sub(backlog_, std::memory_order_relaxed);
}

void OutboundQueue::push(fanout::MessagePtr frame) {
  const std::int64_t w = weight(*frame);
  backlog_ += w;
  gauge_->fetch_add(w, std::memory_order_relaxed);
  frames_.push_back(std::move(frame));
}

void OutboundQueue::push_control(std::string_view wire) {
  control_.append(wire);
}

void OutboundQueue::release(std::int64_t bytes) {
  backlog_ -= bytes;
  gauge_->fetch_sub(bytes, std::memory_order_relaxed);
}

void OutboundQueue::drop_queued() {
  if (control_written_ == 0) control_.clear();  // unstarted pongs go too
  std::int64_t dropped = 0;
  for (std::size_t i = message_end_; i < frames_.size(); ++i) dropped += weight(*frames_[i]);
  frames_.resize(message_end_);
  release(dropped);
  compact();
}

void OutboundQueue::compact() {
  if (head_ == frames_.size()) {
    frames_.clear();  // keeps capacity
    head_ = message_end_ = 0;
  } else if (head_ > 0 && head_ >= frames_.size() / 2) {
    // Amortized O(1) per frame: moves at most as many entries as were spent.
    frames_.erase(frames_.begin(), frames_.begin() + static_cast<std::ptrdiff_t>(head_));
    message_end_ -= head_;
    head_ = 0;
  }
}

void OutboundQueue::open_message() {
  message_end_ = frames_.size();
  const std::size_t separators = message_end_ - head_ - 1;
  std::uint64_t plain = separators;
  for (std::size_t i = head_; i < message_end_; ++i) plain += frames_[i]->text.size();
  compressed_ = false;
  std::uint64_t payload = plain;
  if (deflate_) {
    // Each frame's compressed bytes are made once, by whichever connection
    // writes the frame first (fanout/message.hpp), and shared like its text.
    std::uint64_t packed = separators * deflated_separator().size() - kDeflateTail.size();
    for (std::size_t i = head_; i < message_end_; ++i) packed += deflated(*frames_[i]).size();
    // A message of short replies often grows when compressed: it goes
    // plain then (RFC 7692 lets each message choose, by its RSV1 bit).
    compressed_ = packed < plain;
    if (compressed_) payload = packed;
  }
  header_ = server_frame_header(Opcode::text, payload, compressed_);
  piece_ = 0;
  piece_offset_ = 0;
  open_ = true;
}

std::string_view OutboundQueue::piece(std::size_t p) const {
  if (p == 0) return header_.view();
  if (p % 2 == 0) return compressed_ ? std::string_view(deflated_separator()) : kSeparator;
  const fanout::Message& f = *frames_[head_ + (p - 1) / 2];
  if (!compressed_) return f.text;
  std::string_view bytes = deflated(f);
  // The message's last piece: its trailing 00 00 ff ff is not sent
  // (RFC 7692 §7.2.1); the client appends it back.
  if (p == 2 * (message_end_ - head_) - 1) bytes.remove_suffix(kDeflateTail.size());
  return bytes;
}

std::size_t OutboundQueue::gather(std::span<iovec> iov) {
  if (iov.empty()) return 0;
  if (!open_) {
    if (control_written_ < control_.size()) {
      iov[0] = to_iovec(control_.data() + control_written_, control_.size() - control_written_);
      return 1;
    }
    if (head_ == frames_.size()) return 0;
    open_message();
  }
  const std::size_t count = message_end_ - head_;
  const std::size_t pieces = 2 * count;  // header, then text and separator pairs, less one
  std::size_t n = 0;
  for (std::size_t p = piece_; p < pieces && n < iov.size(); ++p) {
    const std::string_view bytes = piece(p).substr(p == piece_ ? piece_offset_ : 0);
    iov[n++] = to_iovec(bytes.data(), bytes.size());
  }
  return n;
}

OutboundQueue::Written OutboundQueue::consume(std::size_t bytes) {
  Written w;
  if (!open_) {
    control_written_ += bytes;
    if (control_written_ == control_.size()) {
      control_.clear();
      control_written_ = 0;
    }
    return w;
  }
  const std::size_t count = message_end_ - head_;
  const std::size_t pieces = 2 * count;
  while (piece_ < pieces) {
    const std::size_t size = piece(piece_).size();
    const std::size_t take = std::min(bytes, size - piece_offset_);
    piece_offset_ += take;
    bytes -= take;
    if (piece_offset_ < size) break;  // the socket took part of this piece
    if (piece_ % 2 == 1) {
      const fanout::Message& f = *frames_[head_ + (piece_ - 1) / 2];
      ++w.frames;
      release(weight(f));
      if (f.published_ns != 0 && (w.oldest_published == 0 || f.published_ns < w.oldest_published))
        w.oldest_published = f.published_ns;
    }
    ++piece_;
    piece_offset_ = 0;
  }
  if (piece_ == pieces) {
    // The message is out: its frames are released (their bytes already
    // left the backlog one by one above).
    for (std::size_t i = head_; i < message_end_; ++i) frames_[i].reset();
    head_ = message_end_;
    open_ = false;
    compact();
  }
  return w;
}

}  // namespace herald::gateway::ws
