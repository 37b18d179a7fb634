// An outbound message, encoded once and shared read-only by every connection
// it goes to (the "marshal once" lesson: a publication to 10,000 subscribers
// is one string, not 10,000). Connections hold MessagePtrs in their queues
// and hand the text to the socket as is.
//
// The broker makes it in the canonical form (Herald's JSON line). A client
// whose endpoint speaks another protocol gets the message re-encoded by its
// codec (codec/codec.hpp): once per message and codec, by whichever
// connection asks first, and kept here for the others, as the compressed
// form below is. Slot 0 is the canonical form itself.
//
// Its compressed form (permessage-deflate: the WebSocket transport's
// ws/deflate_codec.hpp, which hands its compressor in, so this layer
// depends on no transport) is made the same way: once, by the first
// connection that negotiated compression and writes the frame, and then
// shared by all of them. A frame is shared across shard
// threads, so that first computation is guarded by a std::once_flag: the
// other threads wait for it and then read the same bytes (published by a
// release store that later readers acquire). A frame no
// compressing connection writes is never compressed.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace herald::gateway::fanout {

struct Message {
  Message(std::string t, std::int64_t published) : text(std::move(t)), published_ns(published) {}

  std::string text;
  // steady_clock nanoseconds when the publication was accepted; 0 for
  // replies and other frames that are not publications. Feeds the
  // publish-to-write latency histogram.
  std::int64_t published_ns = 0;

  // Codec slots: 0 (the canonical form) and up to kCodecSlots - 1 others.
  static constexpr std::size_t kCodecSlots = 4;

  // This message as codec `slot` encodes it (`encode(text)` returns the
  // bytes), made on the first call on any thread and shared afterwards;
  // slot 0 is the message itself. `self` is the pointer this message is
  // held by (a caller always has one).
  template <class Encode>
  [[nodiscard]] const std::shared_ptr<const Message>& encoded(
      const std::shared_ptr<const Message>& self, std::size_t slot, Encode&& encode) const {
    if (slot == 0) return self;
    Encoding& e = encodings_[slot - 1];
    if (!e.ready.load(std::memory_order_acquire)) {
      std::call_once(e.once, [&] {
        e.message = std::make_shared<const Message>(encode(std::string_view(text)), published_ns);
        e.ready.store(true, std::memory_order_release);
      });
    }
    return e.message;
  }

  // `text` as `deflate(text)` compresses it, computed on the first call, on
  // any thread, and shared afterwards: every caller passes the same
  // compressor (the WebSocket transport's one deflate form, ws/
  // outbound_queue.cpp), and the first call's is kept. A writer asks for
  // it per piece it sends (several times per delivery), so the common case
  // is one acquire load, not a call_once.
  template <class Deflate>
  [[nodiscard]] const std::string& deflated(Deflate&& deflate) const {
    if (!deflated_ready_.load(std::memory_order_acquire)) {
      std::call_once(deflate_once_, [&] {
        deflated_ = deflate(std::string_view(text));
        deflated_ready_.store(true, std::memory_order_release);
      });
    }
    return deflated_;
  }

 private:
  struct Encoding {
    std::once_flag once;
    std::atomic<bool> ready{false};          // message is written
    std::shared_ptr<const Message> message;  // written once, under `once`
  };
  mutable std::array<Encoding, kCodecSlots - 1> encodings_;
  mutable std::once_flag deflate_once_;
  mutable std::atomic<bool> deflated_ready_{false};  // deflated_ is written
  mutable std::string deflated_;                     // written once, under deflate_once_
};

using MessagePtr = std::shared_ptr<const Message>;

inline MessagePtr make_message(std::string text, std::int64_t published_ns = 0) {
  return std::make_shared<const Message>(std::move(text), published_ns);
}

}  // namespace herald::gateway::fanout
