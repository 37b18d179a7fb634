// A membership's bytes in the store: a versioned, fixed layout (little
// endian), so a later Herald reads what an older one wrote and a damaged
// value is found, not misread.
//
//   0      version (1)
//   1      state (MemberState)
//   2      notify (NotifyMode)
//   3      epoch length, at most kMaxEpochBytes
//   4..5   flags
//   6..9   mentions
//   10..17 read offset
//   18..   epoch bytes
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "state/membership.hpp"

namespace herald::state {

inline constexpr std::uint8_t kRecordVersion = 1;
inline constexpr std::size_t kRecordHeaderBytes = 18;

// The bytes of `m` (its room is the key's, not stored). `m`'s epoch is at
// most kMaxEpochBytes (the store refuses longer ones before).
[[nodiscard]] std::string encode_record(const Membership& m);
// The membership in `bytes` (room left empty), or nullopt when they are not
// a record of a version this build reads.
[[nodiscard]] std::optional<Membership> decode_record(std::string_view bytes);

}  // namespace herald::state
