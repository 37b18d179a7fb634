#include "gateway/limits/user_rates.hpp"

namespace herald::gateway::limits {

bool UserRates::take(const std::string& user, std::int64_t now_ns) {
  std::lock_guard lock(mutex_);
  if (buckets_.size() >= max_users_ && !buckets_.contains(user)) {
    std::erase_if(buckets_, [now_ns](const auto& entry) { return entry.second.full(now_ns); });
  }
  auto [it, added] = buckets_.try_emplace(user, rate_, rate_, now_ns);
  return it->second.take(now_ns);
}

}  // namespace herald::gateway::limits
