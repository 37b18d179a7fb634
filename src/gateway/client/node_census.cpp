#include "gateway/client/node_census.hpp"

namespace herald::gateway::client {

void NodeCensus::Tally::up(const std::string& key) {
  ++by_key[key];
  ++total;
}

void NodeCensus::Tally::down(const std::string& key) {
  auto it = by_key.find(key);
  if (it == by_key.end()) return;  // never counted: nothing to undo
  --total;
  if (--it->second == 0) by_key.erase(it);
}

void NodeCensus::connected(const std::string& user) {
  std::lock_guard lock(mu_);
  users_.up(user);
}

void NodeCensus::disconnected(const std::string& user) {
  std::lock_guard lock(mu_);
  users_.down(user);
}

void NodeCensus::subscribed(const std::string& room) {
  std::lock_guard lock(mu_);
  rooms_.up(room);
}

void NodeCensus::unsubscribed(const std::string& room) {
  std::lock_guard lock(mu_);
  rooms_.down(room);
}

NodeCensus::Counts NodeCensus::counts() const {
  std::lock_guard lock(mu_);
  return {users_.total, users_.by_key.size(), rooms_.by_key.size(), rooms_.total};
}

std::vector<std::pair<std::string, std::uint64_t>> NodeCensus::rooms(
    const std::function<bool(const std::string&)>& match) const {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  std::lock_guard lock(mu_);
  for (const auto& [room, n] : rooms_.by_key) {
    if (match(room)) out.emplace_back(room, n);
  }
  return out;
}

}  // namespace herald::gateway::client
