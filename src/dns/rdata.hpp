// RDATA of every type: wire decoding (strict, with decompression), wire
// encoding (with compression where RFC 3597 §4 allows it), and the
// presentation form. Typed layouts come from detail/rdata_schema.cpp; every
// other type is opaque data (RFC 3597), written `\# <length> <hex>`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dns/buffer.hpp"
#include "dns/error.hpp"
#include "dns/name.hpp"
#include "dns/types.hpp"

namespace herald::dns {

namespace detail {
class CompressionMap;
}

// Reads `rdlength` octets of RDATA of type `t` at the cursor and returns its
// uncompressed form. Fails with bad_rdata (offset of the bad field) if the
// octets do not parse as the type, or with a name error. The cursor ends
// after the RDATA on success.
Result<std::vector<std::uint8_t>> rdata_from_wire(RRType t, Reader& r, std::size_t rdlength);

// Checks that uncompressed RDATA is valid for its type (the same rules).
Error rdata_validate(RRType t, std::span<const std::uint8_t> rdata);

// Writes RDATA (without RDLENGTH), compressing names where the type allows
// and `map` is given. `rdata` must be valid for `t`.
void rdata_to_wire(RRType t, std::span<const std::uint8_t> rdata, Writer& w,
                   detail::CompressionMap* map);

// The same octets as rdata_to_wire(t, rdata, w, &map), for RDATA that is
// valid for `t` by construction (a loaded zone's, checked when it was
// parsed): no descriptor lookup, no re-validation and no Name built per
// write, which were half of an encode's instructions on D1's query mix. The
// responder's path; tests compare the two on every record of the test zones.
void valid_rdata_to_wire(RRType t, std::span<const std::uint8_t> rdata, Writer& w,
                         detail::CompressionMap& map);

// One token of a record's text: a quoted token keeps its escapes; `offset` is
// where it starts in the caller's text (for error messages).
struct TextToken {
  std::string_view text;
  bool quoted = false;
  std::size_t offset = 0;
};

// Parses the presentation form of RDATA (the tokens after the type).
// Relative names are completed with `origin`. `\#` generic form is accepted
// for every type (and checked against the type's layout).
Result<std::vector<std::uint8_t>> rdata_from_text(RRType t, std::span<const TextToken> tokens,
                                                  const Name& origin);

// The presentation form. Types without a layout, and RDATA that does not
// parse as its type, come out in the generic `\#` form.
void rdata_to_text(RRType t, std::span<const std::uint8_t> rdata, std::string& out);

}  // namespace herald::dns
