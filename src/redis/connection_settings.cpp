#include "redis/connection_settings.hpp"

#include <chrono>

namespace herald::redis {

void register_connection_settings(config::Schema& s, const std::string& section,
                                  std::string_view whose, std::string_view used_when, Options& o) {
  using std::chrono::milliseconds;
  const std::string w(whose);
  s.add_string(section + ".username", o.credentials.username,
               "Redis ACL user for " + std::string(used_when) +
                   " (AUTH username password); empty: the default user",
               256);
  s.add_string(section + ".password", o.credentials.password,
               "Password sent with AUTH on every connection to " + w +
                   " (every shard and Redis Cluster node, every reconnect); empty: no AUTH",
               1024);
  s.add_duration(section + ".connect_timeout", o.connect_timeout, milliseconds(10),
                 milliseconds(60'000),
                 "Abandon a connection attempt to " + w + " after this long (then retry)");
  s.add_duration(section + ".command_timeout", o.command_timeout, milliseconds(10),
                 milliseconds(60'000),
                 "A request to " + w +
                     " unanswered this long fails, and the connection is "
                     "re-made");
  s.add_duration(section + ".reconnect_min", o.reconnect_min, milliseconds(1), milliseconds(60'000),
                 "First wait before reconnecting to " + w + " (then doubled)");
  s.add_duration(section + ".reconnect_max", o.reconnect_max, milliseconds(1),
                 milliseconds(600'000), "Longest wait between reconnections to " + w);
}

}  // namespace herald::redis
