// SessionExpiry: when a connection's identity runs out, and what happens
// then. A connection has an expiry when its token has `exp` or the connect
// hook answered `expire_at` (Unix seconds, clamped by
// auth::wait_until_expiry so that a far-future "never" cannot overflow the
// timer).
//
// Without proxy.refresh_url the end is plain: the connection is closed with
// 3003 and the client comes back with fresh credentials. With it, the
// backend is asked (proxy/refresh_hook.hpp says why): a later expire_at
// re-arms the timer; `expired`, an already-past expire_at or an error end
// the connection (3003); a disconnect ends it with the backend's code. A
// backend that cannot answer (any failure, or a result that does not
// read) ends nothing: it is asked again after a Backoff (1 s doubling to a
// minute), reset by the next answer, because a refresh failing is no
// reason to drop a client its application never refused.
//
// Lifetime: SessionExpiry is a member of its session, and every timer and
// backend callback first locks the session's weak pointer (`owner`), so
// nothing touches a destroyed session or this object. Runs on the
// session's shard only.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/time/backoff.hpp"
#include "gateway/proxy/backend_answer.hpp"
#include "gateway/proxy/backend_client.hpp"
#include "gateway/proxy/hook.hpp"

namespace herald::gateway::client {

class SessionExpiry {
 public:
  // How the connection ends: nullopt for 3003 (expired), or the backend's
  // disconnect. Called at most once per arm(), on the shard.
  using End = std::function<void(std::optional<proxy::DisconnectAnswer>)>;

  // `refresh` and `hook`: the shard's refresh client and the node's hook,
  // both null without proxy.refresh_url.
  SessionExpiry(const boost::asio::any_io_executor& executor, proxy::BackendClient* refresh,
                const proxy::Hook* hook);

  // Starts (or restarts) the wait for `expires_at`. `request_json` is the
  // refresh request (proxy::refresh_request_json), sent each time the
  // backend is asked.
  void arm(std::int64_t expires_at, std::weak_ptr<void> owner, std::string request_json, End end);
  void cancel() { timer_.cancel(); }

 private:
  void wait(std::chrono::steady_clock::duration d);
  void expired();
  void answered(proxy::BackendAnswer& answer);

  boost::asio::steady_timer timer_;
  proxy::BackendClient* refresh_;
  const proxy::Hook* hook_;
  Backoff backoff_{std::chrono::seconds(1), std::chrono::minutes(1)};
  std::weak_ptr<void> owner_;
  std::string request_;
  End end_;
};

}  // namespace herald::gateway::client
