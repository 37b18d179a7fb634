// A module's <section>.* connection keys: who it is to Redis (username,
// password) and how patient it is (connect and command timeouts, the
// reconnect backoff). Rooms (cluster.redis) and keyword dictionaries
// (keywords.redis) each reach their own Redis, so each registers these keys
// under its section; the bounds and the wording are written here once, so a
// timeout the one accepts the other accepts too.
#pragma once

#include <string>
#include <string_view>

#include "core/config/schema.hpp"
#include "redis/options.hpp"

namespace herald::redis {

// Registers <section>.username, .password, .connect_timeout,
// .command_timeout, .reconnect_min and .reconnect_max into `o`; help texts
// name the server as `whose` ("the cluster's Redis") and say the keys apply
// when `used_when` ("cluster.mode = redis").
void register_connection_settings(config::Schema& s, const std::string& section,
                                  std::string_view whose, std::string_view used_when, Options& o);

}  // namespace herald::redis
