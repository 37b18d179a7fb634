#include "gateway/client/session_expiry.hpp"

#include "core/log.hpp"
#include "core/time/unix_clock.hpp"
#include "gateway/auth/token.hpp"
#include "gateway/proxy/refresh_hook.hpp"

namespace herald::gateway::client {

SessionExpiry::SessionExpiry(const boost::asio::any_io_executor& executor,
                             proxy::BackendClient* refresh, const proxy::Hook* hook)
    : timer_(executor), refresh_(refresh), hook_(hook) {}

void SessionExpiry::arm(std::int64_t expires_at, std::weak_ptr<void> owner,
                        std::string request_json, End end) {
  owner_ = std::move(owner);
  request_ = std::move(request_json);
  end_ = std::move(end);
  wait(auth::wait_until_expiry(expires_at, unix_now()));
}

void SessionExpiry::wait(std::chrono::steady_clock::duration d) {
  timer_.expires_after(d);
  timer_.async_wait([this, owner = owner_](boost::system::error_code e) {
    if (e || !owner.lock()) return;
    expired();
  });
}

void SessionExpiry::expired() {
  if (!refresh_) return end_(std::nullopt);
  refresh_->post(request_, [this, owner = owner_](proxy::BackendAnswer answer) {
    if (!owner.lock()) return;
    answered(answer);
  });
}

void SessionExpiry::answered(proxy::BackendAnswer& answer) {
  if (auto* bye = std::get_if<proxy::DisconnectAnswer>(&answer)) return end_(*bye);
  // The backend refused to extend: as if it had said expired.
  if (std::holds_alternative<proxy::ErrorAnswer>(answer)) return end_(std::nullopt);
  std::string wrong;
  if (auto* result = std::get_if<proxy::ResultAnswer>(&answer)) {
    auto read = proxy::read_refresh_result(result->json);
    if (auto* grant = std::get_if<proxy::RefreshGrant>(&read)) {
      if (!grant->expire_at || *grant->expire_at <= unix_now()) return end_(std::nullopt);
      backoff_.reset();
      return wait(auth::wait_until_expiry(*grant->expire_at, unix_now()));
    }
    hook_->error(proxy::Failure::bad_answer).inc();
    wrong = std::get<std::string>(read);
  } else {
    wrong = std::get<proxy::FailureAnswer>(answer).detail;
  }
  const std::chrono::milliseconds retry = backoff_.next();
  log::warn("refresh hook failed; will ask again",
            {{"error", wrong}, {"retry_in_ms", static_cast<std::int64_t>(retry.count())}});
  wait(retry);
}

}  // namespace herald::gateway::client
