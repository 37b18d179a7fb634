// What Herald keeps per (user, room) membership, apart from any
// subscription: the room list of issue 43 (docs/plans/room-state.md) shows
// every room of the user, and its counts come from this record and the
// room's stream, never from a write per publication.
//
//   unread   = the stream's top - read.offset, in read.epoch (all of the
//              stream when the epoch is another: the stream was reset)
//   mentions = kept here: the one count a publication writes, and only for
//              the users it mentions
//
// The changes a store applies are values (Change), so a batch of them is
// one transaction and a log of them replays.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace herald::state {

enum class MemberState : std::uint8_t { joined = 1, invited = 2 };

// Bits of Membership::flags.
enum MemberFlag : std::uint16_t {
  kFavourite = 1U << 0,
  kLowPriority = 1U << 1,
  kMarkedUnread = 1U << 2,  // "mark unread": shown unread whatever the counts
  kDirect = 1U << 3,        // a DM, as opposed to a group
};
inline constexpr std::uint16_t kKnownFlags = kFavourite | kLowPriority | kMarkedUnread | kDirect;

// `flag` when `on`, else no bit: a SetFlags change's value of one flag.
[[nodiscard]] constexpr std::uint16_t flag_if(bool on, MemberFlag flag) {
  return on ? static_cast<std::uint16_t>(flag) : std::uint16_t{0};
}

// `flags` with the bits of `mask` taken from `set` (a SetFlags change).
[[nodiscard]] constexpr std::uint16_t with_flags(std::uint16_t flags, std::uint16_t set,
                                                 std::uint16_t mask) {
  // Safety: every operand is a 16-bit flag set; the result fits.
  return static_cast<std::uint16_t>((flags & ~mask) | (set & mask));
}

enum class NotifyMode : std::uint8_t { all = 0, mentions = 1, mute = 2 };

// A position in a room's stream, as the broker gives it.
struct ReadMarker {
  std::string epoch;
  std::uint64_t offset = 0;
  bool operator==(const ReadMarker&) const = default;
};

// The header's unread rule, the one place it is written: the publications
// of a stream whose top is (epoch, top) that come after `read`. In another
// epoch (the stream was reset) or with nothing read (an empty epoch),
// every one of them.
[[nodiscard]] inline std::uint64_t unread_after(const ReadMarker& read, std::string_view epoch,
                                                std::uint64_t top) {
  if (read.epoch != epoch) return top;
  return read.offset >= top ? 0 : top - read.offset;
}

struct Membership {
  std::string room;  // filled by the reads that list rooms
  MemberState state = MemberState::joined;
  std::uint16_t flags = 0;
  NotifyMode notify = NotifyMode::all;
  std::uint32_t mentions = 0;
  ReadMarker read;
  bool operator==(const Membership&) const = default;
};

// The changes. Each names its user and room.
// Joined, or invited. A member already is left as it is, except that a
// join accepts an invitation (the record keeps its marker and flags).
struct Join {
  std::string user, room;
  MemberState state = MemberState::joined;
  bool direct = false;  // a DM: the record starts with kDirect
};
struct Leave {
  std::string user, room;
};
// Read up to `read`: also clears the mentions and "marked unread".
struct SetRead {
  std::string user, room;
  ReadMarker read;
};
// Sets the flags of `mask` to their value in `flags`, and the notification
// mode when one is given; the rest stays as it is, so two devices that
// change different settings at once (a favourite here, a mute there) both
// keep theirs.
struct SetFlags {
  std::string user, room;
  std::uint16_t flags = 0;  // MemberFlag bits; others are refused
  std::uint16_t mask = 0;   // the MemberFlag bits this change sets
  std::optional<NotifyMode> notify;
};
struct AddMention {
  std::string user, room;
};
using Change = std::variant<Join, Leave, SetRead, SetFlags, AddMention>;

// What became of one change of a batch.
enum class Outcome : std::uint8_t {
  done,
  unchanged,         // a Join of a member, a Leave of a non-member
  not_member,        // SetRead, SetFlags or AddMention of a non-member
  too_many_rooms,    // the user is in max_rooms_per_user rooms already
  too_many_members,  // the room has max_members_per_room members already
  bad_name,          // a user or room name with a NUL, or too long for a key
  bad_value,         // unknown flag bits, or an epoch over kMaxEpochBytes
};

inline constexpr std::size_t kMaxEpochBytes = 64;

}  // namespace herald::state
