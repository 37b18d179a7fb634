#include "gateway/limits/connections_per_ip.hpp"

#include <utility>

namespace herald::gateway::limits {

ConnectionsPerIp::Lease::Lease(Lease&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), key_(std::move(other.key_)) {}

ConnectionsPerIp::Lease& ConnectionsPerIp::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    if (owner_) owner_->release(key_);
    owner_ = std::exchange(other.owner_, nullptr);
    key_ = std::move(other.key_);
  }
  return *this;
}

ConnectionsPerIp::Lease::~Lease() {
  if (owner_) owner_->release(key_);
}

std::string ConnectionsPerIp::key_of(const boost::asio::ip::address& address) const {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return key_of(boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()));
  }
  if (exempt_loopback_ && address.is_loopback()) return {};
  if (address.is_v4()) {
    const auto bytes = address.to_v4().to_bytes();
    return std::string(bytes.begin(), bytes.end());
  }
  const auto bytes = address.to_v6().to_bytes();
  return std::string(bytes.begin(), bytes.begin() + 8);  // the /64
}

std::optional<ConnectionsPerIp::Lease> ConnectionsPerIp::try_acquire(
    const boost::asio::ip::address& address) {
  std::string key = key_of(address);
  if (key.empty()) return Lease{};
  std::lock_guard lock(mutex_);
  std::uint32_t& n = held_[key];
  if (n >= max_per_ip_) return std::nullopt;  // n > 0 here: no zero entry is left behind
  ++n;
  return Lease{this, std::move(key)};
}

void ConnectionsPerIp::release(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = held_.find(key);
  if (it == held_.end()) return;
  if (--it->second == 0) held_.erase(it);
}

std::uint32_t ConnectionsPerIp::held(const boost::asio::ip::address& address) const {
  const std::string key = key_of(address);
  if (key.empty()) return 0;
  std::lock_guard lock(mutex_);
  auto it = held_.find(key);
  return it == held_.end() ? 0 : it->second;
}

}  // namespace herald::gateway::limits
