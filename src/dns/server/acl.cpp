#include "dns/server/acl.hpp"

#include <algorithm>

#include "core/config/values.hpp"

namespace herald::dns {

namespace {

// IPv4 addresses as IPv4-mapped IPv6 (::ffff:a.b.c.d), so one compare
// serves both families and a v4 client matches a v4 entry either way.
std::array<std::uint8_t, 16> bytes_of(const boost::asio::ip::address& a) {
  if (a.is_v6()) {
    auto v6 = a.to_v6();
    if (v6.is_v4_mapped()) return v6.to_bytes();
    return v6.to_bytes();
  }
  return boost::asio::ip::make_address_v6(boost::asio::ip::v4_mapped, a.to_v4()).to_bytes();
}

}  // namespace

herald::Result<AddressAcl, std::string> AddressAcl::parse(std::string_view list) {
  AddressAcl acl;
  for (std::string_view item : config::split_list(list)) {
    std::size_t slash = item.find('/');
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(std::string(item.substr(0, slash)), ec);
    if (ec) {
      return "'" + std::string(item) + "': not an address";
    }
    unsigned max = addr.is_v4() ? 32 : 128;
    unsigned prefix = max;
    if (slash != std::string_view::npos) {
      std::string_view p = item.substr(slash + 1);
      if (p.empty() || p.size() > 3 ||
          !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return "'" + std::string(item) + "': the prefix is not a number";
      }
      prefix = static_cast<unsigned>(std::stoul(std::string(p)));
      if (prefix > max) {
        return "'" + std::string(item) + "': prefix over " + std::to_string(max);
      }
    }
    Entry e;
    e.v6 = addr.is_v6();
    e.bytes = bytes_of(addr);
    e.prefix = addr.is_v4() ? prefix + 96 : prefix;  // within the mapped form
    acl.entries_.push_back(e);
  }
  return acl;
}

bool AddressAcl::allows(const boost::asio::ip::address& a) const noexcept {
  auto b = bytes_of(a);
  for (const Entry& e : entries_) {
    unsigned full = e.prefix / 8, rest = e.prefix % 8;
    if (!std::equal(b.begin(), b.begin() + full, e.bytes.begin())) continue;
    if (rest != 0) {
      std::uint8_t mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
      if ((b[full] & mask) != (e.bytes[full] & mask)) continue;
    }
    return true;
  }
  return false;
}

}  // namespace herald::dns
