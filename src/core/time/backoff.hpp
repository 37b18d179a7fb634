// Backoff: the waits between retries of something that keeps failing. The
// first retry waits `min`, each later one twice the last, never more than
// `max`; a success resets it. One type owns the doubling so that every
// retry loop (the Redis client's reconnects, the refresh hook's retries)
// grows and caps the same way.
#pragma once

#include <algorithm>
#include <chrono>

namespace herald {

class Backoff {
 public:
  Backoff(std::chrono::milliseconds min, std::chrono::milliseconds max)
      : min_(min), max_(std::max(min, max)) {}

  // The wait before the next retry; each call doubles the following one.
  std::chrono::milliseconds next() {
    current_ = current_.count() == 0 ? min_ : std::min(current_ * 2, max_);
    return current_;
  }
  // After a success: the next failure waits `min` again.
  void reset() { current_ = std::chrono::milliseconds(0); }
  // The last wait next() gave (0 before the first, or after a reset).
  [[nodiscard]] std::chrono::milliseconds current() const { return current_; }

 private:
  std::chrono::milliseconds min_;
  std::chrono::milliseconds max_;
  std::chrono::milliseconds current_{0};
};

}  // namespace herald
