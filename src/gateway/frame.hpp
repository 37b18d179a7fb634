// An outbound message, encoded once and shared read-only by every connection
// it goes to (the "marshal once" lesson: a publication to 10,000 subscribers
// is one string, not 10,000). Connections hold FramePtrs in their queues and
// hand the text to the socket as is.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace herald::gateway {

struct Frame {
  std::string text;
  // steady_clock nanoseconds when the publication was accepted; 0 for
  // replies and other frames that are not publications. Feeds the
  // publish-to-write latency histogram.
  std::int64_t published_ns = 0;
};

using FramePtr = std::shared_ptr<const Frame>;

inline std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline FramePtr make_frame(std::string text, std::int64_t published_ns = 0) {
  return std::make_shared<const Frame>(Frame{std::move(text), published_ns});
}

}  // namespace herald::gateway
