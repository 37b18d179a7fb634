#include "gateway/client/room_list_feed.hpp"

#include <simdjson.h>

#include "core/json.hpp"
#include "gateway/protocol/encode.hpp"
#include "live/room_list/filters.hpp"
#include "live/room_list/sorters.hpp"

namespace herald::gateway::client {

namespace {

// Previews are cut at this many bytes, at a UTF-8 code point boundary.
constexpr std::size_t kPreviewBytes = 120;

std::string cut_preview(std::string_view s) {
  if (s.size() <= kPreviewBytes) return std::string(s);
  std::size_t n = kPreviewBytes;
  // Back up over continuation bytes (10xxxxxx) so a code point stays whole.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "…";
}

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

namespace {

// What a room list takes from one publication. Every watcher of the room on
// a shard receives the same frame, so it is parsed once per shard, not once
// per watcher: the last frame's summary is kept per thread (holding the
// frame, so its address cannot be reused for another while remembered).
struct PublicationSummary {
  enum class Kind : std::uint8_t { text, rename, other };
  bool valid = false;
  Kind kind = Kind::other;
  std::string room;
  std::string sender;
  std::string text;     // data.text or the data string (whole: mentions search it)
  std::string preview;  // cut; for a rename, the notice
  std::string rename;
};

const PublicationSummary& summarize(const fanout::MessagePtr& frame) {
  thread_local fanout::MessagePtr last;
  thread_local PublicationSummary summary;
  if (last == frame) return summary;
  last = frame;
  summary = PublicationSummary{};
  thread_local simdjson::dom::parser parser;
  const std::string_view json = protocol::publication_in_push(frame->text);
  simdjson::dom::element doc;
  std::string_view room;
  simdjson::dom::element data;
  if (parser.parse(json.data(), json.size()).get(doc) != simdjson::SUCCESS ||
      doc["room"].get(room) != simdjson::SUCCESS || doc["data"].get(data) != simdjson::SUCCESS) {
    return summary;  // the server encoded it; cannot happen
  }
  summary.valid = true;
  summary.room = std::string(room);
  std::string_view sender;
  if (doc["info"]["user"].get(sender) == simdjson::SUCCESS) summary.sender = std::string(sender);
  std::string_view text;
  std::string_view rename;
  if (data.is_object() && data["rename"].get(rename) == simdjson::SUCCESS) {
    summary.kind = PublicationSummary::Kind::rename;
    summary.rename = std::string(rename);
    summary.preview = "renamed the room to " + cut_preview(rename);
  } else if ((data.is_object() && data["text"].get(text) == simdjson::SUCCESS) ||
             data.get(text) == simdjson::SUCCESS) {
    // Mentions count only in data.text; a bare string previews alike.
    summary.kind =
        data.is_object() ? PublicationSummary::Kind::text : PublicationSummary::Kind::other;
    summary.text = std::string(text);
    summary.preview = cut_preview(text);
  } else {
    summary.preview = cut_preview(simdjson::minify(data));
  }
  return summary;
}

}  // namespace

void RoomListFeed::on_publication(const fanout::MessagePtr& frame, std::uint64_t now_ms) {
  const PublicationSummary& p = summarize(frame);
  if (!p.valid) return;
  const auto it = rooms_.find(p.room);
  if (it == rooms_.end()) return;
  Room& r = *it->second;
  if (!p.sender.empty()) r.sender = p.sender;  // API publications carry no sender
  r.preview = p.preview;
  if (p.kind == PublicationSummary::Kind::rename) {
    r.info.display_name = p.rename;
  } else if (p.sender != user_) {
    ++r.info.unread_count;
    if (p.kind == PublicationSummary::Kind::text && p.text.find(mention_) != std::string::npos)
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

void RoomListFeed::append_item(std::string& out, const live::RoomListItem& item) const {
  // Every id a diff carries is in by_id_: removed rooms stay until drained.
  const auto it = by_id_.find(item.id.value);
  const Room* r = it == by_id_.end() ? nullptr : it->second;
  out += "{\"room\":";
  json::append_string(out, r ? std::string_view(r->name) : std::string_view());
  out += ",\"name\":";
  json::append_string(out, item.display_name());
  out += ",\"preview\":";
  json::append_string(out, r ? std::string_view(r->preview) : std::string_view());
  out += ",\"sender\":";
  json::append_string(out, r ? std::string_view(r->sender) : std::string_view());
  out += ",\"time\":" + std::to_string(item.latest_event_ms);
  out += ",\"unread\":" + std::to_string(item.unread_count);
  out += ",\"mentions\":" + std::to_string(item.mention_count);
  out += ",\"favourite\":";
  out += (item.tags & live::kTagFavourite) ? "true" : "false";
  out += ",\"low_priority\":";
  out += (item.tags & live::kTagLowPriority) ? "true" : "false";
  out += '}';
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
  if (batch_.empty()) return {};
  std::string out = "{\"rooms\":{\"diffs\":[";
  bool first = true;
  for (const auto& d : batch_) {
    if (!first) out += ',';
    first = false;
    out += "{\"op\":\"";
    out += live::to_string(d.op);
    out += '"';
    switch (d.op) {
      case live::DiffOp::append:
      case live::DiffOp::reset: {
        out += ",\"values\":[";
        for (std::size_t i = 0; i < d.values.size(); ++i) {
          if (i) out += ',';
          append_item(out, d.values[i]);
        }
        out += ']';
        break;
      }
      case live::DiffOp::push_front:
      case live::DiffOp::push_back:
        out += ",\"value\":";
        append_item(out, d.value);
        break;
      case live::DiffOp::insert:
      case live::DiffOp::set:
        out += ",\"index\":" + std::to_string(d.index) + ",\"value\":";
        append_item(out, d.value);
        break;
      case live::DiffOp::remove:
        out += ",\"index\":" + std::to_string(d.index);
        break;
      case live::DiffOp::truncate:
        out += ",\"length\":" + std::to_string(d.index);
        break;
      case live::DiffOp::clear:
      case live::DiffOp::pop_front:
      case live::DiffOp::pop_back:
        break;
    }
    out += '}';
  }
  out += "]}}";
  return out;
}

}  // namespace herald::gateway::client
