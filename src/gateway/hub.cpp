#include "gateway/hub.hpp"

#include <algorithm>

#include "gateway/ws/ws_session.hpp"

namespace herald::gateway {

void Hub::join(const std::string& room, WsSession* session) {
  rooms_[room].push_back(session);
}

void Hub::leave(const std::string& room, WsSession* session) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return;
  std::erase(it->second, session);
  if (it->second.empty()) rooms_.erase(it);
}

void Hub::deliver(const std::string& room, const FramePtr& frame) {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return;
  for (WsSession* s : it->second) s->deliver(frame);
}

std::vector<WsSession*> Hub::subscribers(const std::string& room) const {
  auto it = rooms_.find(room);
  if (it == rooms_.end()) return {};
  return it->second;
}

}  // namespace herald::gateway
