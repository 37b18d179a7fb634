// A connection's client id: 16 random hex digits, named in its publications'
// info, its presence entries and the server API. One generator for every
// kind of connection (WebSocket, SSE), so ids look and collide alike.
#pragma once

#include <string>

namespace herald::gateway::client {

// Random per call (core/random.hpp's hex_id); not secret, only unlikely to
// repeat.
[[nodiscard]] std::string random_client_id();

}  // namespace herald::gateway::client
