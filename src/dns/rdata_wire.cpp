// RDATA on the wire: strict decoding driven by the type's field layout, and
// encoding with compression of the RFC 1035 names. What each field kind
// reads is its row of detail/rdata_fields.cpp.
#include "dns/detail/compression.hpp"
#include "dns/detail/rdata_fields.hpp"
#include "dns/detail/rdata_schema.hpp"
#include "dns/rdata.hpp"

namespace herald::dns {
namespace {

using detail::Compression;
using detail::field_kind;
using detail::Sink;

// Decodes the fields of `d` from `r` (its limit is the end of the RDATA).
// `message` is true when `r` reads a whole message, where the RFC 1035 names
// may be compressed; false for uncompressed RDATA.
Error decode_fields(const detail::Descriptor& d, Reader& r, bool message, Sink& out) {
  const detail::WireContext c{r.position(), message};
  for (std::size_t i = 0; i < d.count; ++i) {
    if (Error e = field_kind(d.fields[i]).decode(r, c, out)) return e;
  }
  if (r.remaining() != 0) return make_error(Errc::bad_rdata, r.position());
  return {};
}

}  // namespace

Result<std::vector<std::uint8_t>> rdata_from_wire(RRType t, Reader& r, std::size_t rdlength) {
  if (!r.has(rdlength)) return make_error(Errc::truncated, r.position());
  std::vector<std::uint8_t> out;
  const detail::Descriptor* d = detail::find_descriptor(t);
  if (d == nullptr || d->count == 0) {
    auto s = r.bytes(rdlength);
    out.assign(s.begin(), s.end());
    return out;
  }
  std::size_t old = r.narrow(rdlength);
  // Decompression can make RDATA longer than RDLENGTH. For layouts with
  // compressible names a first pass on a copy of the cursor measures the
  // result, so the vector is allocated once at its final size.
  bool grows = false;
  for (std::size_t i = 0; i < d->count; ++i) {
    grows |= field_kind(d->fields[i]).compression != Compression::none;
  }
  if (grows) {
    Reader probe = r;
    Sink measure{nullptr};
    if (Error e = decode_fields(*d, probe, true, measure)) {
      r.restore(old);
      return e;
    }
    out.reserve(measure.count);
  } else {
    out.reserve(rdlength);
  }
  Sink sink{&out};
  Error e = decode_fields(*d, r, true, sink);
  r.restore(old);
  if (e) return e;
  return out;
}

Error rdata_validate(RRType t, std::span<const std::uint8_t> rdata) {
  const detail::Descriptor* d = detail::find_descriptor(t);
  if (rdata.size() > 65535) return make_error(Errc::rdata_too_long, 0);
  if (d == nullptr || d->count == 0) return {};
  Reader r(rdata);
  Sink none{nullptr};
  return decode_fields(*d, r, false, none);
}

void rdata_to_wire(RRType t, std::span<const std::uint8_t> rdata, Writer& w,
                   detail::CompressionMap* map) {
  const detail::Descriptor* d = detail::find_descriptor(t);
  bool compressible = false;
  if (map != nullptr && d != nullptr) {
    for (std::size_t i = 0; i < d->count; ++i) {
      compressible |= field_kind(d->fields[i]).compression == Compression::both;
    }
  }
  if (!compressible) {
    w.bytes(rdata);
    return;
  }
  // RDATA made by the decoders or the text parser is valid; RDATA built by
  // hand might not be, so it is checked first and written verbatim if it
  // does not fit the layout. Then each field is read again (it cannot fail)
  // only to find where it ends: names the layout lets us compress go through
  // the map, every other field is copied.
  if (rdata_validate(t, rdata)) {
    w.bytes(rdata);
    return;
  }
  Reader r(rdata);
  Sink none{nullptr};
  const detail::WireContext c{0, false};
  for (std::size_t i = 0; i < d->count; ++i) {
    const detail::FieldKind& k = field_kind(d->fields[i]);
    std::size_t at = r.position();
    if (k.decode(r, c, none)) return;  // not reached: validated above
    auto field = rdata.subspan(at, r.position() - at);
    if (k.compression != Compression::both) {
      w.bytes(field);
      continue;
    }
    auto n = Name::from_uncompressed(field);
    if (n) map->write_name(w, n.value());
  }
}

namespace {

// The end of the uncompressed name starting at `pos` of valid RDATA.
std::size_t name_end(std::span<const std::uint8_t> rdata, std::size_t pos) noexcept {
  while (rdata[pos] != 0) pos += 1u + rdata[pos];
  return pos + 1;
}

}  // namespace

void valid_rdata_to_wire(RRType t, std::span<const std::uint8_t> rdata, Writer& w,
                         detail::CompressionMap& map) {
  // The types whose layouts have compressible names (name_c in
  // detail/rdata_schema.cpp: RFC 1035's; RFC 3597 §4 forbids compressing
  // any other). Everything else is copied as it is.
  switch (t.value) {
    case 2:   // NS
    case 5:   // CNAME
    case 7:   // MB
    case 8:   // MG
    case 9:   // MR
    case 12:  // PTR
      map.write_name(w, rdata);
      return;
    case 15:  // MX: preference, exchange
      w.bytes(rdata.first(2));
      map.write_name(w, rdata.subspan(2));
      return;
    case 6:     // SOA: mname, rname, five u32
    case 14: {  // MINFO: rmailbx, emailbx
      std::size_t first = name_end(rdata, 0);
      std::size_t second = name_end(rdata, first);
      map.write_name(w, rdata.first(first));
      map.write_name(w, rdata.subspan(first, second - first));
      w.bytes(rdata.subspan(second));
      return;
    }
    default:
      w.bytes(rdata);
  }
}

}  // namespace herald::dns
