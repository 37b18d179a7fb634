// How a Client reaches Redis and how patient it is. The daemon binds these
// to configuration keys (docs/configuration.md, sections [keywords.redis] and
// [cluster.redis]).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace herald::redis {

class Script;

// Where the server is now, as a locator answers it: host and port, or why
// it cannot tell.
struct Located {
  std::string host;
  std::uint16_t port = 0;
  std::string error;  // non-empty: not located
};
// Asked before every connect; answers once, on the client's io thread.
using Locate = std::function<void(std::function<void(Located)>)>;

// Who the client is to Redis: AUTH is sent on every connection (commands,
// pub/sub, every Redis Cluster node, every reconnect) before anything else,
// because Redis forgets it with the connection. Neither set: no AUTH.
// With a username, AUTH username password (a Redis 6 ACL user; an empty
// password is sent too, which a `nopass` user accepts and any other
// refuses, so a forgotten password is a clear start-up error, never a
// silent fall back to the default user); without, AUTH password
// (requirepass, or the ACL's default user). The password is never logged,
// nor put in an error message.
struct Credentials {
  std::string username;
  std::string password;

  [[nodiscard]] bool empty() const { return username.empty() && password.empty(); }
  // The AUTH command's arguments; empty when there is nothing to send.
  [[nodiscard]] std::vector<std::string> auth_command() const {
    if (username.empty()) {
      if (password.empty()) return {};
      return {"AUTH", password};
    }
    return {"AUTH", username, password};
  }
  // Who was refused, for messages: "user 'alice'" or "the default user".
  [[nodiscard]] std::string who() const {
    return username.empty() ? std::string("the default user") : "user '" + username + "'";
  }
};

struct Options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
  Credentials credentials;
  // A connect that has not completed by then is abandoned and retried.
  std::chrono::milliseconds connect_timeout{1000};
  // A pipeline whose replies have not all arrived by then fails, and the
  // connection is dropped and re-established (a server that stopped
  // answering is indistinguishable from a dead one).
  std::chrono::milliseconds command_timeout{2000};
  // Reconnect backoff: the first retry waits reconnect_min, each failure
  // doubles the wait, up to reconnect_max.
  std::chrono::milliseconds reconnect_min{50};
  std::chrono::milliseconds reconnect_max{2000};
  // Loaded (SCRIPT LOAD) on every connect before the client is ready
  // (client.hpp says why); constants that outlive the client.
  std::vector<const Script*> scripts;
  // Set: where to connect is asked before every connect (Redis Sentinel:
  // sentinel.hpp), and host/port only name the server in messages until
  // then. Empty: host and port.
  Locate locate;
};

}  // namespace herald::redis
