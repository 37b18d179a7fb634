// Which client addresses may do something (zone transfers): a list of
// addresses and networks, "192.0.2.7, 198.51.100.0/24, 2001:db8::/32".
// Empty allows no one. Checked once per transfer request, not per query.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace herald::dns {

class AddressAcl {
 public:
  // The list, or what is wrong with its first bad entry ("'10.0.0.0/33':
  // prefix over 32") if an entry is not an address or a network.
  static herald::Result<AddressAcl, std::string> parse(std::string_view list);

  bool allows(const boost::asio::ip::address& a) const noexcept;
  bool empty() const noexcept { return entries_.empty(); }

 private:
  struct Entry {
    bool v6 = false;
    std::array<std::uint8_t, 16> bytes{};
    unsigned prefix = 0;  // bits that must match
  };
  std::vector<Entry> entries_;
};

}  // namespace herald::dns
