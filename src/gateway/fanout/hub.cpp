#include "gateway/fanout/hub.hpp"

#include <algorithm>

namespace herald::gateway::fanout {

void Hub::join(const std::string& room, Subscriber* subscriber) {
  rooms_[room].push_back(subscriber);
}

void Hub::leave(const std::string& room, Subscriber* subscriber) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return;
  std::erase(it->second, subscriber);
  if (it->second.empty()) rooms_.erase(it);
}

void Hub::deliver(const std::string& room, const MessagePtr& frame) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return;
  for (Subscriber* s : it->second) s->deliver(room, frame);
}

std::vector<Subscriber*> Hub::subscribers(const std::string& room) const {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return {};
  return it->second;
}

}  // namespace herald::gateway::fanout
