#include "dns/server/serial_changes.hpp"

#include "dns/notify.hpp"

namespace herald::dns {

std::vector<std::shared_ptr<const Zone>> SerialChanges::update(
    const std::vector<std::shared_ptr<const Zone>>& zones) {
  std::vector<std::shared_ptr<const Zone>> changed;
  std::unordered_map<std::string, std::uint32_t> serials;
  for (const auto& z : zones) {
    std::string origin = z->origin().lowercased().to_text();
    const std::uint32_t serial = soa_serial(*z);
    auto it = serials_.find(origin);
    if (it == serials_.end() || it->second != serial) changed.push_back(z);
    serials.emplace(std::move(origin), serial);
  }
  serials_ = std::move(serials);
  return changed;
}

}  // namespace herald::dns
