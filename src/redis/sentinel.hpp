// Where a Redis Sentinel deployment's master is now: the answer to
// SENTINEL get-master-addr-by-name, asked of each Sentinel in turn.
//
// A Client of topology "sentinel" asks this before every connect
// (Options::locate), so a failover is followed by the reconnect it causes:
// the old master's connection drops (it died), or it answers READONLY (it
// was demoted while we were connected) and the client drops it; the next
// connect asks again, reaches the promoted replica, and checks with INFO
// that it is the master now (client.hpp). That is the Sentinel client
// protocol's "ask, connect, verify the role" loop, with the Sentinels'
// +switch-master messages left unread: the connection's loss says the
// same thing, a little later, and needs no subscription of its own.
//
// The Sentinels are asked in order, starting with the last one that
// answered; one that is down, does not know the master or does not answer
// within `timeout` is skipped. When none answers, the locate fails with
// every Sentinel's reason, and the client retries with its backoff.
// Sentinels are asked without AUTH (a Sentinel's own requirepass is not
// supported yet; docs/cluster.md).
//
// Threading: the io_context's thread, like the Client that calls it.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/config/values.hpp"
#include "redis/options.hpp"

namespace herald::redis {

class Sentinel {
 public:
  // `section` names the configuration keys in messages ("cluster.redis").
  Sentinel(boost::asio::io_context& io, std::vector<config::Endpoint> sentinels,
           std::string master_name, std::chrono::milliseconds timeout, std::string section);

  // Answers once, never from inside this call.
  void locate(std::function<void(Located)> done);

 private:
  struct Ask;
  void ask_next(const std::shared_ptr<Ask>& ask);
  void skip(const std::shared_ptr<Ask>& ask, std::size_t k, const std::string& why);

  boost::asio::io_context& io_;
  const std::vector<config::Endpoint> sentinels_;
  const std::string master_name_;
  const std::chrono::milliseconds timeout_;
  const std::string section_;
  std::size_t preferred_ = 0;  // the Sentinel that answered last
};

}  // namespace herald::redis
