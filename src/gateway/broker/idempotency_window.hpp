// The offsets of a room's recent publications that named an idempotency
// key (Centrifugo's idempotency_key): a publish retried with the same key
// within the window is answered with the first one's position and
// publishes nothing, so a backend may retry a publish whose answer it
// lost without its subscribers seeing the message twice. Centrifugo keeps
// such results 5 minutes, per channel; so does Herald.
//
// Bounded two ways: an entry goes when the window has passed (expire(), at
// each publish and sweep), and a room remembers at most kMaxKeys at once,
// its oldest going first (a retry after that many newer keyed publishes
// publishes again: said in docs/protocol.md). The embedded broker keeps
// one per room that has used a key; the Redis broker keeps the same
// window in Redis (redis_schema.hpp, the publish script).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace herald::gateway::broker {

class IdempotencyWindow {
 public:
  static constexpr std::chrono::nanoseconds kWindow = std::chrono::minutes(5);
  static constexpr std::size_t kMaxKeys = 10'000;

  // The offset published under `key` within the window before `now_ns`.
  [[nodiscard]] std::optional<std::uint64_t> find(const std::string& key,
                                                  std::int64_t now_ns) const {
    auto it = offsets_.find(key);
    if (it == offsets_.end() || now_ns - it->second.at_ns >= kWindow.count()) return std::nullopt;
    return it->second.offset;
  }

  // Remembers that `key` published `offset` at `now_ns` (a key not found).
  void remember(const std::string& key, std::uint64_t offset, std::int64_t now_ns) {
    expire(now_ns);
    if (order_.size() == kMaxKeys) drop_oldest();
    offsets_[key] = Entry{offset, now_ns};
    order_.emplace_back(now_ns, key);
  }

  // Forgets what the window has passed.
  void expire(std::int64_t now_ns) {
    while (!order_.empty() && now_ns - order_.front().first >= kWindow.count()) drop_oldest();
  }

  [[nodiscard]] bool empty() const { return order_.empty(); }
  [[nodiscard]] std::size_t size() const { return order_.size(); }

 private:
  struct Entry {
    std::uint64_t offset;
    std::int64_t at_ns;
  };
  void drop_oldest() {
    const auto& [at, key] = order_.front();
    // The map's entry is this one unless the key was remembered again
    // later (a key found expired and published anew).
    if (auto it = offsets_.find(key); it != offsets_.end() && it->second.at_ns == at)
      offsets_.erase(it);
    order_.pop_front();
  }

  std::unordered_map<std::string, Entry> offsets_;
  std::deque<std::pair<std::int64_t, std::string>> order_;  // oldest first
};

}  // namespace herald::gateway::broker
