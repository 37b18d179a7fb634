// RDATA in presentation form (RFC 1035 §5.1 and each type's RFC), driven by
// the same field layouts as the wire codec. What each field kind prints and
// parses is its row of detail/rdata_fields.cpp.
#include "dns/detail/rdata_fields.hpp"
#include "dns/detail/rdata_schema.hpp"
#include "dns/detail/text_codecs.hpp"
#include "dns/rdata.hpp"

namespace herald::dns {
namespace {

using detail::field_kind;
using detail::Spacing;

void generic_to_text(std::span<const std::uint8_t> rdata, std::string& out) {
  out += "\\# ";
  out += std::to_string(rdata.size());
  if (!rdata.empty()) {
    out += ' ';
    detail::hex_encode(rdata, out);
  }
}

}  // namespace

void rdata_to_text(RRType t, std::span<const std::uint8_t> rdata, std::string& out) {
  const detail::Descriptor* d = detail::find_descriptor(t);
  if (d == nullptr || d->count == 0 || rdata_validate(t, rdata)) {
    generic_to_text(rdata, out);
    return;
  }
  // Valid for its layout (checked above), so every field below is in range.
  std::size_t pos = 0;
  for (std::size_t i = 0; i < d->count; ++i) {
    const detail::FieldKind& k = field_kind(d->fields[i]);
    bool rest_empty = k.spacing == Spacing::none_empty && pos == rdata.size();
    if (i > 0 && !rest_empty && k.spacing != Spacing::own) out += ' ';
    pos = k.to_text(rdata, pos, out);
  }
}

Result<std::vector<std::uint8_t>> rdata_from_text(RRType t, std::span<const TextToken> tokens,
                                                  const Name& origin) {
  std::vector<std::uint8_t> out;
  if (!tokens.empty() && !tokens[0].quoted && tokens[0].text == "\\#") {
    // RFC 3597 §5: \# <length> <hex>..., for any type.
    std::uint64_t n;
    if (tokens.size() < 2 || !detail::decimal_decode(tokens[1].text, 65535, false, n))
      return text_error(tokens[0].offset, "expected the RDATA length after \\#");
    std::string joined;
    for (const TextToken& tok : tokens.subspan(2)) joined += tok.text;
    if (!detail::hex_decode(joined, out) || out.size() != n)
      return text_error(tokens[1].offset, "expected " + std::to_string(n) + " octets of hex");
    if (Error e = rdata_validate(t, out)) {
      return text_error(tokens[0].offset, "generic RDATA is not valid for " + type_to_text(t));
    }
    return out;
  }
  const detail::Descriptor* d = detail::find_descriptor(t);
  if (d == nullptr || d->count == 0) {
    return text_error(tokens.empty() ? 0 : tokens[0].offset,
                      "expected \\# generic RDATA for " + type_to_text(t));
  }
  detail::TextReader in(tokens);
  for (std::size_t i = 0; i < d->count; ++i) {
    if (Error e = field_kind(d->fields[i]).from_text(in, origin, out)) return e;
  }
  if (!in.done()) return text_error(in.offset(), "unexpected text after the RDATA");
  if (out.size() > 65535) return text_error(0, "RDATA over 65535 octets");
  if (Error e = rdata_validate(t, out)) {
    return text_error(
        tokens.empty() ? 0 : tokens[0].offset,
        std::string("RDATA not valid for its type: ") + std::string(error_message(e.code)));
  }
  return out;
}

}  // namespace herald::dns
