#include "gateway/client/room_list_feed.hpp"

#include <algorithm>

#include "gateway/membership/notify_mode.hpp"
#include "gateway/protocol/mentions.hpp"
#include "gateway/protocol/publication_summary.hpp"
#include "gateway/protocol/room_list_push.hpp"
#include "live/room_list/filter_expr.hpp"

namespace herald::gateway::client {

namespace {

// The live item's tags for a membership's flags.
std::uint8_t tags_of(std::uint16_t flags) {
  // Safety: the two tag bits fit a byte.
  return static_cast<std::uint8_t>(
      ((flags & state::kFavourite) != 0 ? live::kTagFavourite : 0) |
      ((flags & state::kLowPriority) != 0 ? live::kTagLowPriority : 0));
}

}  // namespace

RoomListFeed::RoomListFeed(std::string user) : user_(std::move(user)) {}
RoomListFeed::~RoomListFeed() = default;

RoomListFeed::Room* RoomListFeed::find(std::string_view room) {
  auto it = rooms_.find(std::string(room));
  return it == rooms_.end() ? nullptr : it->second.get();
}

const RoomListFeed::Room* RoomListFeed::find(std::string_view room) const {
  auto it = rooms_.find(std::string(room));
  return it == rooms_.end() ? nullptr : it->second.get();
}

void RoomListFeed::update(Room& r) {
  if (r.top_known && r.read_known) {
    const std::uint64_t unread = state::unread_after(r.read, r.top.epoch, r.top.offset);
    r.info.unread_count = static_cast<std::uint32_t>(std::min<std::uint64_t>(unread, UINT32_MAX));
  }
  // update_room fails only for an unknown id, and every Room is in the service.
  (void)service_.update_room(r.info);
}

RoomListFeed::Room& RoomListFeed::listed(std::string_view room) {
  if (Room* r = find(room)) return *r;
  auto r = std::make_unique<Room>();
  r->name = std::string(room);
  r->info.id = live::RoomId{next_id_++};
  r->info.display_name = r->name;
  (void)service_.add_room(r->info);
  by_id_[r->info.id.value] = r.get();
  Room& added = *r;
  rooms_.emplace(added.name, std::move(r));
  return added;
}

void RoomListFeed::forget_if_unlisted(std::string_view room) {
  auto it = rooms_.find(std::string(room));
  if (it == rooms_.end() || it->second->subscribed || it->second->member) return;
  (void)service_.remove_room(it->second->info.id);
  removed_.push_back(std::move(it->second));
  rooms_.erase(it);
}

void RoomListFeed::add_subscribed(std::string_view room, std::optional<state::ReadMarker> read) {
  Room& r = listed(room);
  r.subscribed = true;
  // A membership's marker is the user's; a subscription only starts one.
  if (read && !r.read_known) {
    learn_top(r, protocol::StreamPosition{read->epoch, read->offset});
    read_up_to(r, std::move(*read));
    return;
  }
  update(r);
}

void RoomListFeed::remove_subscribed(std::string_view room) {
  if (Room* r = find(room)) r->subscribed = false;
  forget_if_unlisted(room);
}

bool RoomListFeed::add_member(const state::Membership& m) {
  const bool listed_before = find(m.room) != nullptr;
  Room& r = listed(m.room);
  r.member = true;
  r.flags = m.flags;
  r.notify = m.notify;
  show_flags(r);
  r.info.membership =
      m.state == state::MemberState::invited ? live::Membership::invited : live::Membership::joined;
  r.read_known = true;
  r.read = m.read;
  r.info.mention_count = m.mentions;
  update(r);
  return !listed_before;
}

void RoomListFeed::remove_member(std::string_view room) {
  if (Room* r = find(room)) r->member = false;
  forget_if_unlisted(room);
}

bool RoomListFeed::is_subscribed(std::string_view room) const {
  const Room* r = find(room);
  return r != nullptr && r->subscribed;
}

bool RoomListFeed::is_member(std::string_view room) const {
  const Room* r = find(room);
  return r != nullptr && r->member;
}

std::vector<std::string> RoomListFeed::rooms() const {
  std::vector<std::string> out;
  out.reserve(rooms_.size());
  for (const auto& [name, r] : rooms_) out.push_back(name);
  return out;
}

void RoomListFeed::learn_top(Room& r, const protocol::StreamPosition& top) {
  // Within an epoch the top only grows (recovered publications come
  // before the live ones); another epoch is a reset stream.
  if (r.top_known && r.top.epoch == top.epoch && r.top.offset >= top.offset) return;
  r.top_known = true;
  r.top = top;
}

void RoomListFeed::show_flags(Room& r) {
  r.info.tags = tags_of(r.flags);
  r.info.is_direct = (r.flags & state::kDirect) != 0;
  r.info.is_marked_unread = (r.flags & state::kMarkedUnread) != 0;
  r.info.notify = membership::live_notify_mode(r.notify);
}

void RoomListFeed::clear_marks(Room& r) {
  // As the store's SetRead: the mentions and "marked unread" go.
  r.info.mention_count = 0;
  r.flags = state::with_flags(r.flags, 0, state::kMarkedUnread);
  show_flags(r);
}

void RoomListFeed::read_up_to(Room& r, state::ReadMarker read) {
  r.read_known = true;
  r.read = std::move(read);
  clear_marks(r);
  update(r);
}

std::uint64_t RoomListFeed::stamp_at(std::uint64_t ms) {
  stamp_ = std::max(stamp_ + 1, ms * 1000);
  return stamp_;
}

void RoomListFeed::on_tail(std::string_view room, const protocol::StreamPosition& top,
                           const fanout::MessagePtr& last, std::uint64_t last_ms) {
  Room* r = find(room);
  if (r == nullptr) return;
  learn_top(*r, top);
  if (!r->read_known) {
    r->read_known = true;  // counts start here
    r->read = state::ReadMarker{r->top.epoch, r->top.offset};
  }
  if (last && !r->live) {
    const protocol::PublicationSummary& p = protocol::summarize_publication(last);
    if (p.valid) {
      if (!p.sender.empty()) r->sender = p.sender;
      r->preview = p.preview;
      if (p.kind == protocol::PublicationSummary::Kind::rename) r->info.display_name = p.rename;
      r->info.latest_event_ms = last_ms;
      // Its own time, whatever order the tails come back in; later
      // activity stamps above it (stamp_at).
      r->info.recency_stamp = last_ms * 1000;
      stamp_ = std::max(stamp_, r->info.recency_stamp);
    }
  }
  update(*r);
}

void RoomListFeed::on_publication(const fanout::MessagePtr& frame, std::uint64_t now_ms) {
  const protocol::PublicationSummary& p = protocol::summarize_publication(frame);
  if (!p.valid) return;
  const auto it = rooms_.find(p.room);
  if (it == rooms_.end()) return;
  Room& r = *it->second;
  r.live = true;
  if (!p.sender.empty()) r.sender = p.sender;  // API publications carry no sender
  r.preview = p.preview;
  if (p.position) {
    if (!r.read_known) {
      // Counting starts with this one: the marker just before it.
      r.read_known = true;
      r.read.epoch = p.position->epoch;
      r.read.offset = p.position->offset > 0 ? p.position->offset - 1 : 0;
    }
    learn_top(r, *p.position);
  }
  if (p.kind == protocol::PublicationSummary::Kind::rename) {
    r.info.display_name = p.rename;
  } else if (p.sender == user_) {
    // Sending reads the room: the marker moves to the user's publication.
    const auto& at = p.position;
    if (at && (r.read.epoch != at->epoch || r.read.offset < at->offset)) {
      r.read = state::ReadMarker{at->epoch, at->offset};
    }
    clear_marks(r);
  } else if (!r.member && p.kind == protocol::PublicationSummary::Kind::text &&
             protocol::mentions(p.text, user_)) {
    // A membership's mentions are kept (membership/mentioning_broker.hpp)
    // and come from the store; only a subscribed room's are counted here.
    ++r.info.mention_count;
  }
  r.info.latest_event_ms = now_ms;
  r.info.recency_stamp = stamp_at(now_ms);
  update(r);
}

std::optional<state::ReadMarker> RoomListFeed::mark_read(std::string_view room) {
  Room* r = find(room);
  if (r == nullptr) return std::nullopt;
  if (!r->top_known) {
    // Nothing known of the stream yet: nothing to count either.
    clear_marks(*r);
    update(*r);
    return std::nullopt;
  }
  read_up_to(*r, state::ReadMarker{r->top.epoch, r->top.offset});
  return r->read;
}

bool RoomListFeed::set_flags(const state::SetFlags& change) {
  Room* r = find(change.room);
  if (!r) return false;
  r->flags = state::with_flags(r->flags, change.flags, change.mask);
  if (change.notify) r->notify = *change.notify;
  show_flags(*r);
  update(*r);
  return true;
}

void RoomListFeed::watch(const protocol::RoomsWatchCmd& query) {
  view_ = std::make_unique<live::RoomListView>(service_, query.sort, live::compile(query.filter),
                                               query.page_size);
}

bool RoomListFeed::page_more() {
  if (!view_) return false;
  view_->add_page();
  return true;
}

bool RoomListFeed::page_reset() {
  if (!view_) return false;
  view_->reset_to_one_page();
  return true;
}

protocol::RoomRow RoomListFeed::row_of(const live::RoomListItem& item) const {
  // Every id a diff carries is in by_id_: removed rooms stay until drained.
  const auto it = by_id_.find(item.id.value);
  const Room* r = it == by_id_.end() ? nullptr : it->second;
  protocol::RoomRow row;
  if (r != nullptr) {
    row.room = r->name;
    row.preview = r->preview;
    row.sender = r->sender;
  }
  row.name = item.display_name();
  row.time_ms = item.latest_event_ms;
  row.unread = item.unread_count;
  row.mentions = item.mention_count;
  row.notifications = item.notification_count;
  row.favourite = (item.tags & live::kTagFavourite) != 0;
  row.low_priority = (item.tags & live::kTagLowPriority) != 0;
  row.marked_unread = item.is_marked_unread;
  row.direct = item.is_direct;
  row.invited = item.membership == live::Membership::invited;
  row.notify = item.notify;
  return row;
}

std::string RoomListFeed::drain() {
  struct ForgetRemoved {  // on every return path
    RoomListFeed& f;
    ~ForgetRemoved() {
      for (const auto& r : f.removed_) f.by_id_.erase(r->info.id.value);
      f.removed_.clear();
    }
  } forget{*this};
  if (!view_) return {};
  view_->poll(batch_);
  return protocol::encode_rooms_push(
      batch_, [this](const live::RoomListItem& item) { return row_of(item); });
}

}  // namespace herald::gateway::client
