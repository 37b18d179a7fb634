#include "live/room_list/item.hpp"

#include <utility>

namespace herald::live {

namespace {
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
}  // namespace

std::string normalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool pending_space = false;
  for (const char c : name) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

bool RoomListItem::refresh(const RoomInfo& info) {
  bool changed = false;
  auto update = [&changed](auto& field, const auto& value) {
    if (field != value) {
      field = value;
      changed = true;
    }
  };
  update(id, info.id);
  update(latest_event_ms, info.latest_event_ms);
  update(latest_event_is_local, info.latest_event_is_local);
  update(recency_stamp, info.recency_stamp);
  update(unread_count, info.unread_count);
  update(mention_count, info.mention_count);
  update(tags, info.tags);
  update(membership, info.membership);
  update(is_direct, info.is_direct);
  update(is_marked_unread, info.is_marked_unread);
  update(notify, info.notify);
  update(notification_count,
         live::notification_count(info.unread_count, info.mention_count, info.notify));
  if (!name || name->raw != info.display_name) {
    name = std::make_shared<const RoomName>(
        RoomName{info.display_name, normalize_name(info.display_name)});
    changed = true;
  }
  return changed;
}

bool operator==(const RoomListItem& a, const RoomListItem& b) {
  return a.id == b.id && a.latest_event_ms == b.latest_event_ms &&
         a.recency_stamp == b.recency_stamp && a.unread_count == b.unread_count &&
         a.mention_count == b.mention_count && a.tags == b.tags && a.membership == b.membership &&
         a.latest_event_is_local == b.latest_event_is_local && a.is_direct == b.is_direct &&
         a.is_marked_unread == b.is_marked_unread && a.notify == b.notify &&
         a.notification_count == b.notification_count && a.display_name() == b.display_name();
}

}  // namespace herald::live
