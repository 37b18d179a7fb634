#include "dns/edns.hpp"

namespace herald::dns {
namespace {

bool valid_option(std::uint16_t code, std::span<const std::uint8_t> d) {
  switch (code) {
    case 10:  // COOKIE
      return d.size() == 8 || (d.size() >= 16 && d.size() <= 40);
    case 8: {  // Client Subnet
      if (d.size() < 4) return false;
      std::uint16_t family = static_cast<std::uint16_t>(d[0] << 8 | d[1]);
      std::uint8_t source = d[2], scope = d[3];
      unsigned max = family == 1 ? 32 : family == 2 ? 128 : 0;
      if (max == 0 || source > max || scope > max) return false;
      std::size_t octets = (source + 7u) / 8u;
      if (d.size() != 4 + octets) return false;
      if (source % 8 != 0 && octets > 0) {
        std::uint8_t mask = static_cast<std::uint8_t>(0xFF >> (source % 8));
        if (d.back() & mask) return false;
      }
      return true;
    }
    case 15:
      return d.size() >= 2;  // EDE
    default:
      return true;
  }
}

}  // namespace

const EdnsOption* Edns::find(OptionCode code) const noexcept {
  for (const auto& o : options) {
    if (o.code == code) return &o;
  }
  return nullptr;
}

std::optional<std::span<const std::uint8_t>> Edns::nsid() const {
  if (const auto* o = find(option::NSID)) return std::span<const std::uint8_t>(o->data);
  return std::nullopt;
}

std::optional<std::pair<std::span<const std::uint8_t>, std::span<const std::uint8_t>>>
Edns::cookie() const {
  const auto* o = find(option::COOKIE);
  if (o == nullptr || !valid_option(10, o->data)) return std::nullopt;
  std::span<const std::uint8_t> all(o->data);
  return std::make_pair(all.first(8), all.subspan(8));
}

std::optional<ClientSubnet> Edns::client_subnet() const {
  const auto* o = find(option::CLIENT_SUBNET);
  if (o == nullptr || !valid_option(8, o->data)) return std::nullopt;
  ClientSubnet c;
  c.family = static_cast<std::uint16_t>(o->data[0] << 8 | o->data[1]);
  c.source_prefix = o->data[2];
  c.scope_prefix = o->data[3];
  c.address.assign(o->data.begin() + 4, o->data.end());
  return c;
}

std::optional<ExtendedError> Edns::extended_error() const {
  const auto* o = find(option::EDE);
  if (o == nullptr || o->data.size() < 2) return std::nullopt;
  ExtendedError e;
  e.info_code = static_cast<std::uint16_t>(o->data[0] << 8 | o->data[1]);
  e.text.assign(o->data.begin() + 2, o->data.end());
  return e;
}

void Edns::add_client_subnet(const ClientSubnet& ecs) {
  EdnsOption o{option::CLIENT_SUBNET, {}};
  o.data = {static_cast<std::uint8_t>(ecs.family >> 8), static_cast<std::uint8_t>(ecs.family),
            ecs.source_prefix, ecs.scope_prefix};
  o.data.insert(o.data.end(), ecs.address.begin(), ecs.address.end());
  options.push_back(std::move(o));
}

void Edns::add_extended_error(const ExtendedError& ede) {
  EdnsOption o{option::EDE, {}};
  o.data = {static_cast<std::uint8_t>(ede.info_code >> 8),
            static_cast<std::uint8_t>(ede.info_code)};
  o.data.insert(o.data.end(), ede.text.begin(), ede.text.end());
  options.push_back(std::move(o));
}

void Edns::add_padding(std::size_t n) {
  options.push_back({option::PADDING, std::vector<std::uint8_t>(n, 0)});
}

std::size_t Edns::wire_size() const noexcept {
  std::size_t n = 11;  // root, type, class, ttl, rdlength
  for (const auto& o : options) n += 4 + o.data.size();
  return n;
}

Result<Edns> Edns::read(std::uint16_t rrclass, std::uint32_t ttl, Reader& r) {
  Edns e;
  e.udp_size = rrclass;
  e.extended_rcode = static_cast<std::uint8_t>(ttl >> 24);
  e.version = static_cast<std::uint8_t>(ttl >> 16);
  e.dnssec_ok = ttl & 0x8000;
  e.z = static_cast<std::uint16_t>(ttl & 0x7FFF);
  while (r.remaining() > 0) {
    std::size_t at = r.position();
    if (!r.has(4)) return make_error(Errc::bad_option, at);
    std::uint16_t code = r.u16();
    std::uint16_t len = r.u16();
    if (!r.has(len)) return make_error(Errc::bad_option, at);
    auto data = r.bytes(len);
    if (!valid_option(code, data)) return make_error(Errc::bad_option, at);
    e.options.push_back({OptionCode{code}, {data.begin(), data.end()}});
  }
  return e;
}

void Edns::write(Writer& w) const {
  w.u8(0);
  w.u16(type::OPT.value);
  w.u16(udp_size);
  w.u32(static_cast<std::uint32_t>(extended_rcode) << 24 |
        static_cast<std::uint32_t>(version) << 16 | (dnssec_ok ? 0x8000u : 0u) | (z & 0x7FFFu));
  std::size_t len = 0;
  for (const auto& o : options) len += 4 + o.data.size();
  w.u16(static_cast<std::uint16_t>(len));
  for (const auto& o : options) {
    w.u16(o.code.value);
    w.u16(static_cast<std::uint16_t>(o.data.size()));
    w.bytes(o.data);
  }
}

}  // namespace herald::dns
