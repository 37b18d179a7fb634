// SvcParams of SVCB and HTTPS (RFC 9460 §2.2, §7):
//
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//   |                 SvcParamKey                   |
//   |                 SvcParamValue length          |
//   /                 SvcParamValue                 /
//   +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
//
// Keys strictly increase on the wire (a receiver must treat anything else as
// malformed); each known key's value has a fixed grammar, checked here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dns/error.hpp"
#include "dns/rdata.hpp"

namespace herald::dns::detail {

// Checks params (the RDATA remainder). Returns the offset of the first bad
// octet relative to `params`, or -1 if valid.
long svc_params_check(std::span<const std::uint8_t> params) noexcept;
void svc_params_to_text(std::span<const std::uint8_t> params, std::string& out);
// Parses key=value tokens (in any order, no repeats) into wire order.
Error svc_params_from_text(std::span<const TextToken> tokens, std::vector<std::uint8_t>& out);

}  // namespace herald::dns::detail
