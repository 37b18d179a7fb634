// The room list's records: RoomInfo (what the server knows about a room) and
// RoomListItem (the small cached record every sorter and filter reads).
//
// The lesson of the Matrix Rust SDK room list (docs/live.md): its sorters
// read keys straight from the room behind a read lock, cloning a 144-byte
// value per call; building a list of ~600 rooms took 322,042 allocations, and
// 53 ms instead of 676 µs once the keys were cached. Here a sorter or filter
// only ever sees a RoomListItem: plain fields, no lock, no allocation, no
// pointer to shared room state. The item is refreshed from RoomInfo exactly
// when its room changes (RoomListService::update_room), and the view learns
// of the change as one Set diff.
//
// RoomListItem is a value: copying one copies its keys (the name is shared,
// immutable, so a copy is a reference-count increment, never an allocation).
// Views keep copies; a later refresh produces a new value and never changes
// a copy already handed out, so the sort view never sees a key change behind
// its back (the shallow-clone bug it guards against anyway).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "live/room_list/room_id.hpp"

namespace herald::live {

enum class Membership : std::uint8_t { joined, invited, knocked, left, banned };

// Bit flags in RoomInfo::tags / RoomListItem::tags.
enum RoomTag : std::uint8_t {
  kTagFavourite = 1U << 0,
  kTagLowPriority = 1U << 1,
};

// What the user asked to be notified of in a room (Matrix's room
// notification modes): every publication, only those that mention them, or
// none. It decides the notification count, not the unread count: a muted
// room still has unread publications, it just asks for no attention.
enum class NotifyMode : std::uint8_t { all, mentions_only, mute };

// The room's shared state as the server holds it; the room list reads it
// only in RoomListItem::refresh.
struct RoomInfo {
  RoomId id;
  std::string display_name;
  std::uint64_t latest_event_ms = 0;   // origin timestamp of the latest event; 0: none
  bool latest_event_is_local = false;  // the latest event is ours and not yet sent
  std::uint64_t recency_stamp = 0;     // grows with activity; 0: never active
  std::uint32_t unread_count = 0;
  std::uint32_t mention_count = 0;
  std::uint8_t tags = 0;  // RoomTag bits
  Membership membership = Membership::joined;
  bool is_direct = false;         // a DM, as opposed to a group
  bool is_marked_unread = false;  // the user marked it unread (Matrix's MSC2867)
  NotifyMode notify = NotifyMode::all;
};

// The publications that ask for the user's attention, by notification
// mode: the unread ones (all), the mentions among them (mentions_only), or
// none (mute). The one place the rule is written; items cache its answer.
[[nodiscard]] constexpr std::uint32_t notification_count(std::uint32_t unread,
                                                         std::uint32_t mentions, NotifyMode mode) {
  switch (mode) {
    case NotifyMode::all:
      return unread;
    case NotifyMode::mentions_only:
      return mentions;
    case NotifyMode::mute:
      return 0;
  }
  return unread;
}

// The display name, raw (to detect renames without re-normalizing) and
// normalized (what name sorting and matching compare). Immutable once built.
struct RoomName {
  std::string raw;
  std::string normalized;
};

// ASCII case folding, surrounding whitespace trimmed, inner runs of
// whitespace collapsed to one space. Bytes >= 0x80 (UTF-8 of other scripts)
// are kept as they are: full Unicode folding needs ICU, which a pure engine
// does not take on.
[[nodiscard]] std::string normalize_name(std::string_view name);

struct RoomListItem {
  RoomId id;
  std::uint64_t latest_event_ms = 0;
  std::uint64_t recency_stamp = 0;
  std::uint32_t unread_count = 0;
  std::uint32_t mention_count = 0;
  std::uint32_t notification_count = 0;  // live::notification_count of the above
  std::uint8_t tags = 0;
  Membership membership = Membership::joined;
  NotifyMode notify = NotifyMode::all;
  bool latest_event_is_local = false;
  bool is_direct = false;
  bool is_marked_unread = false;
  std::shared_ptr<const RoomName> name;  // never null once refreshed

  RoomListItem() = default;
  explicit RoomListItem(const RoomInfo& info) { refresh(info); }

  // Copies the keys from `info`; the name is rebuilt only if it changed (the
  // one case that allocates). Returns whether any key changed.
  bool refresh(const RoomInfo& info);

  [[nodiscard]] std::string_view normalized_name() const {
    return name ? std::string_view(name->normalized) : std::string_view();
  }
  [[nodiscard]] std::string_view display_name() const {
    return name ? std::string_view(name->raw) : std::string_view();
  }

  // Equal keys (names by content).
  friend bool operator==(const RoomListItem& a, const RoomListItem& b);
};

}  // namespace herald::live
