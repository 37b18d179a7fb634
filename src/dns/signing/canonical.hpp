// The octets an RRSIG signs: RFC 4034 §3.1.8.1 over the canonical form of
// an RRset (§6.2) in canonical order (§6.3).
//
//   signed data = RRSIG fields (rrsig.hpp) | RR(1) | RR(2) | ...
//   RR(i)       = owner | type | class | original TTL | RDLENGTH | RDATA
//
// Canonical form: the owner uncompressed and lower case (a wildcard owner
// as "*." and the rightmost `labels` labels of it); names inside RDATA
// lower case for the types RFC 4034 §6.2 item 3 lists, less NSEC (RFC 6840
// §5.1), and left as they are for every type defined since (RFC 3597 §7:
// new types keep their names' case); the TTL is the RRSIG's original TTL.
// Canonical order: the RDATA of each RR in canonical form, compared as
// left-justified octet strings, a shorter one first on a common prefix;
// equal RRs appear once (RFC 2181 §5 calls them one record).
//
// Why a builder object: a shard signs on the query path, and the buffers
// kept between calls make a signature's data cost no allocation once they
// have grown to the largest RRset seen.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "dns/name.hpp"
#include "dns/signing/rrsig.hpp"
#include "dns/types.hpp"

namespace herald::dns::signing {

// Whether §6.2 lower-cases the names inside `t`'s RDATA.
bool canonical_lowercases(RRType t) noexcept;

// False for the types whose canonical form needs a layout this codebase
// does not have (MD, MF, SIG, PX, NXT, A6: §6.2 lower-cases their names,
// and without a layout their names cannot be found). A zone signed online
// refuses them at load rather than sign a form no validator would rebuild.
bool canonical_form_known(RRType t) noexcept;

// Appends `rdata` (valid for `t`, uncompressed) in canonical form.
void append_canonical_rdata(RRType t, std::span<const std::uint8_t> rdata,
                            std::vector<std::uint8_t>& out);

class SignedData {
 public:
  // The data an RRSIG with `fields` signs over the RRset of `owner` and
  // `fields.covered` made of `rdatas` (class IN). The span is valid until
  // the next call.
  std::span<const std::uint8_t> build(const RrsigFields& fields, const Name& owner,
                                      std::span<const std::vector<std::uint8_t>> rdatas);

 private:
  std::vector<std::uint8_t> out_;
  std::vector<std::uint8_t> canonical_;  // every RDATA, canonical, back to back
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges_;  // each one's offset, length
};

}  // namespace herald::dns::signing
