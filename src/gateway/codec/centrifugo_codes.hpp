// Herald's error and disconnect codes as Centrifugo's client protocol says
// them (codec/centrifugo_json.hpp). The core decides with Herald's codes
// (protocol/codes.hpp); a Centrifugo SDK acts on Centrifugo's, and on
// rules Herald's clients do not have:
//   - an error reply is retried when its code is below 100, is 109 (token
//     expired: the SDK fetches a new token first) or is marked
//     "temporary"; any other code fails the subscription for good, or the
//     connection when it answers connect;
//   - a disconnect is final in 3500-3999 and 4500-4999, retried elsewhere,
//     and its close frame must carry a reason (with an empty one the SDK
//     reconnects whatever the code).
// So each of Herald's codes maps to the Centrifugo code of the same cause,
// with the temporary flag where Herald says "try again". Herald's codes
// that Centrifugo has no cause for keep their meaning in the application
// range Centrifugo leaves free (400-1999): 1000 + Herald's code.
// A backend's own disconnect codes (4000-4999) follow the same rule in both
// protocols and pass unchanged.
//
// Read from centrifugal/centrifuge (errors.go, disconnect.go) and
// centrifuge-js (src/centrifuge.ts); docs/centrifugo.md has the table.
#pragma once

#include <cstdint>
#include <string_view>

#include "gateway/protocol/codes.hpp"

namespace herald::gateway::codec::centrifugo {

struct Error {
  std::uint32_t code;
  bool temporary;
};
[[nodiscard]] Error error_for(protocol::ErrorCode code);

struct Disconnect {
  std::uint16_t code;
  std::string_view reason;  // Centrifugo's words; never empty
};
// `reason`: Herald's, kept for a code Centrifugo has no words for (a
// backend's own code), and replaced by "disconnect" when empty.
[[nodiscard]] Disconnect disconnect_for(std::uint16_t code, std::string_view reason);

}  // namespace herald::gateway::codec::centrifugo
