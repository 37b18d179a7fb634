// A connection's meta in the hooks' request bodies: Centrifugo's "meta",
// from the connection's token or the connect hook's result, which the
// application attaches for its own hooks and no client ever sees. Every
// request made for a connected client (subscribe, publish, rpc, refresh)
// carries it the same way, so a backend reads it from one place.
#pragma once

#include <string>
#include <string_view>

namespace herald::gateway::proxy {

// Appends ,"meta":<meta_json> when the connection has meta (valid JSON);
// nothing when it has none.
inline void append_meta(std::string& out, std::string_view meta_json) {
  if (meta_json.empty()) return;
  out += ",\"meta\":";
  out += meta_json;
}

}  // namespace herald::gateway::proxy
