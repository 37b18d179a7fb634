#include "gateway/client/node_census.hpp"

namespace herald::gateway::client {

void NodeCensus::count(std::unordered_map<std::string, std::uint64_t>& map, const std::string& key,
                       bool up) {
  if (up) {
    ++map[key];
    return;
  }
  auto it = map.find(key);
  if (it == map.end()) return;  // never counted: nothing to undo
  if (--it->second == 0) map.erase(it);
}

void NodeCensus::connected(const std::string& user) {
  std::lock_guard lock(mu_);
  count(users_, user, true);
  ++clients_;
}

void NodeCensus::disconnected(const std::string& user) {
  std::lock_guard lock(mu_);
  count(users_, user, false);
  if (clients_ > 0) --clients_;
}

void NodeCensus::subscribed(const std::string& room) {
  std::lock_guard lock(mu_);
  count(rooms_, room, true);
  ++subscriptions_;
}

void NodeCensus::unsubscribed(const std::string& room) {
  std::lock_guard lock(mu_);
  count(rooms_, room, false);
  if (subscriptions_ > 0) --subscriptions_;
}

NodeCensus::Counts NodeCensus::counts() const {
  std::lock_guard lock(mu_);
  return {clients_, users_.size(), rooms_.size(), subscriptions_};
}

std::vector<std::pair<std::string, std::uint64_t>> NodeCensus::rooms(
    const std::function<bool(std::string_view)>& match) const {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  std::lock_guard lock(mu_);
  for (const auto& [room, n] : rooms_) {
    if (match(room)) out.emplace_back(room, n);
  }
  return out;
}

}  // namespace herald::gateway::client
