// The head of every JSON object that names a connection: `{"client":"…"` or
// `{"client":"…","user":"…"`, left open for the caller's own fields and the
// closing brace. Presence entries, the connect reply's identity and the
// backend hooks' request bodies all start this way; writing the head in one
// place keeps their key names, order and escaping the same, so a backend
// that reads `client` and `user` from one hook reads them from every other.
#pragma once

#include <string>
#include <string_view>

#include "core/json.hpp"

namespace herald::gateway::protocol {

inline void open_client_object(std::string& out, std::string_view client) {
  out += "{\"client\":";
  json::append_string(out, client);
}

inline void open_client_object(std::string& out, std::string_view client, std::string_view user) {
  open_client_object(out, client);
  out += ",\"user\":";
  json::append_string(out, user);
}

}  // namespace herald::gateway::protocol
