// The user-name rule: a user is named by 1 to 64 bytes, whoever names it (a
// token's sub, a dev-mode connect, an HTTP client's user=, the connect
// hook's answer). Presence entries, rates and per-user disconnects key on
// the name, so one bound holds everywhere and is stated once, here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace herald::gateway::protocol {

inline constexpr std::size_t kMaxUserBytes = 64;

[[nodiscard]] constexpr bool valid_user_name(std::string_view user) {
  return !user.empty() && user.size() <= kMaxUserBytes;
}

// The rule as refusals state it: "1 to 64 bytes".
[[nodiscard]] inline std::string user_name_rule() {
  return "1 to " + std::to_string(kMaxUserBytes) + " bytes";
}

}  // namespace herald::gateway::protocol
