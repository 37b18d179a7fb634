// EDNS(0) (RFC 6891 §6.1.2): the OPT pseudo-record, held apart from the
// additional section. Its fixed fields reuse the record header:
//
//   NAME   root (0)                     TYPE  OPT (41)
//   CLASS  requestor's UDP payload size
//   TTL    +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//          |   EXTENDED-RCODE      |       VERSION         |
//          +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//          |DO|                    Z                       |
//          +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//   RDATA  { OPTION-CODE (16) | OPTION-LENGTH (16) | OPTION-DATA }*
//
// Options are kept in order, unknown ones verbatim. Known ones are checked
// on decode: COOKIE (RFC 7873: 8, or 16..40 octets), Client Subnet (RFC 7871
// §6: family 1 or 2, prefix within the family, address exactly
// ceil(source/8) octets with no bits set past the prefix), EDE (RFC 8914: at
// least the 2-octet info code). NSID and Padding take any octets.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dns/buffer.hpp"
#include "dns/error.hpp"
#include "dns/types.hpp"

namespace herald::dns {

struct EdnsOption {
  OptionCode code;
  std::vector<std::uint8_t> data;
  friend bool operator==(const EdnsOption&, const EdnsOption&) = default;
};

struct ClientSubnet {
  std::uint16_t family = 1;  // 1 IPv4, 2 IPv6
  std::uint8_t source_prefix = 0;
  std::uint8_t scope_prefix = 0;
  std::vector<std::uint8_t> address;  // ceil(source_prefix / 8) octets
  friend bool operator==(const ClientSubnet&, const ClientSubnet&) = default;
};

struct ExtendedError {
  std::uint16_t info_code = 0;
  std::string text;  // UTF-8, may be empty
  friend bool operator==(const ExtendedError&, const ExtendedError&) = default;
};

struct Edns {
  std::uint16_t udp_size = 1232;
  std::uint8_t extended_rcode = 0;  // upper 8 bits of the 12-bit RCODE
  std::uint8_t version = 0;
  bool dnssec_ok = false;
  std::uint16_t z = 0;  // the 15 flag bits after DO, kept for round trips
  std::vector<EdnsOption> options;

  friend bool operator==(const Edns&, const Edns&) = default;

  const EdnsOption* find(OptionCode code) const noexcept;
  std::optional<std::span<const std::uint8_t>> nsid() const;
  // Client cookie (8 octets) and server cookie (empty or 8..32 octets).
  std::optional<std::pair<std::span<const std::uint8_t>, std::span<const std::uint8_t>>> cookie()
      const;
  std::optional<ClientSubnet> client_subnet() const;
  std::optional<ExtendedError> extended_error() const;

  void add_client_subnet(const ClientSubnet& ecs);
  void add_extended_error(const ExtendedError& ede);
  // Padding (RFC 7830) of `n` zero octets.
  void add_padding(std::size_t n);

  // Octets this OPT record takes on the wire.
  std::size_t wire_size() const noexcept;
  // Decodes from the record's TTL and RDATA (`r` narrowed to the RDATA).
  static Result<Edns> read(std::uint16_t rrclass, std::uint32_t ttl, Reader& r);
  void write(Writer& w) const;
};

}  // namespace herald::dns
