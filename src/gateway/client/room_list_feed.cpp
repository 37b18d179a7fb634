#include "gateway/client/room_list_feed.hpp"

#include "gateway/protocol/publication_summary.hpp"
#include "gateway/protocol/room_list_push.hpp"
#include "live/room_list/filters.hpp"
#include "live/room_list/sorters.hpp"

namespace herald::gateway::client {

namespace {

live::RoomFilter make_filter(const protocol::RoomsWatchCmd& q) {
  std::vector<live::RoomFilter> all;
  if (q.unread) all.push_back(live::filter_unread());
  if (q.mentions) all.push_back(live::filter_mentions());
  if (q.favourite) all.push_back(live::filter_favourite());
  if (!q.name.empty()) all.push_back(live::filter_normalized_name(q.name));
  return all.empty() ? live::RoomFilter([](const live::RoomListItem&) { return true; })
                     : live::filter_all(std::move(all));
}

live::RoomSorter make_sorter(const protocol::RoomsWatchCmd& q) {
  if (q.sort == protocol::RoomsWatchCmd::Sort::name) return live::sort_name();
  return live::default_room_sorter();  // unsent first, then recency, then name
}

}  // namespace

RoomListFeed::RoomListFeed(std::string user) : user_(std::move(user)), mention_("@" + user_) {}
RoomListFeed::~RoomListFeed() = default;

RoomListFeed::Room* RoomListFeed::find(std::string_view room) {
  auto it = rooms_.find(std::string(room));
  return it == rooms_.end() ? nullptr : it->second.get();
}

void RoomListFeed::update(Room& r) {
  // update_room fails only for an unknown id, and every Room is in the service.
  (void)service_.update_room(r.info);
}

void RoomListFeed::add_room(std::string_view room) {
  if (find(room)) return;
  auto r = std::make_unique<Room>();
  r->name = std::string(room);
  r->info.id = live::RoomId{next_id_++};
  r->info.display_name = r->name;
  (void)service_.add_room(r->info);
  by_id_[r->info.id.value] = r.get();
  rooms_.emplace(r->name, std::move(r));
}

void RoomListFeed::remove_room(std::string_view room) {
  auto it = rooms_.find(std::string(room));
  if (it == rooms_.end()) return;
  (void)service_.remove_room(it->second->info.id);
  removed_.push_back(std::move(it->second));
  rooms_.erase(it);
}

void RoomListFeed::on_publication(const fanout::MessagePtr& frame, std::uint64_t now_ms) {
  const protocol::PublicationSummary& p = protocol::summarize_publication(frame);
  if (!p.valid) return;
  const auto it = rooms_.find(p.room);
  if (it == rooms_.end()) return;
  Room& r = *it->second;
  if (!p.sender.empty()) r.sender = p.sender;  // API publications carry no sender
  r.preview = p.preview;
  if (p.kind == protocol::PublicationSummary::Kind::rename) {
    r.info.display_name = p.rename;
  } else if (p.sender != user_) {
    ++r.info.unread_count;
    if (p.kind == protocol::PublicationSummary::Kind::text &&
        p.text.find(mention_) != std::string::npos)
      ++r.info.mention_count;
  }
  r.info.latest_event_ms = now_ms;
  r.info.recency_stamp = ++stamp_;
  update(r);
}

bool RoomListFeed::mark_read(std::string_view room) {
  Room* r = find(room);
  if (!r) return false;
  r->info.unread_count = 0;
  r->info.mention_count = 0;
  update(*r);
  return true;
}

bool RoomListFeed::set_tags(std::string_view room, bool favourite, bool low_priority) {
  Room* r = find(room);
  if (!r) return false;
  r->info.tags = static_cast<std::uint8_t>((favourite ? live::kTagFavourite : 0) |
                                           (low_priority ? live::kTagLowPriority : 0));
  update(*r);
  return true;
}

void RoomListFeed::watch(const protocol::RoomsWatchCmd& query) {
  view_ = std::make_unique<live::RoomListView>(service_, make_sorter(query), make_filter(query),
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
  row.favourite = (item.tags & live::kTagFavourite) != 0;
  row.low_priority = (item.tags & live::kTagLowPriority) != 0;
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
