// RDATA on the wire: strict decoding driven by the type's field layout, and
// encoding with compression of the RFC 1035 names.
#include <cstring>

#include "dns/detail/compression.hpp"
#include "dns/detail/loc.hpp"
#include "dns/detail/rdata_schema.hpp"
#include "dns/detail/svcb.hpp"
#include "dns/rdata.hpp"

namespace herald::dns {
namespace {

using detail::Field;

// Where decoded RDATA octets go: a vector, or nowhere when only validating
// (rdata_validate runs on the encoder's path and must not allocate).
struct Sink {
  std::vector<std::uint8_t>* v;
  std::size_t count = 0;  // octets appended (or that would have been)
  template <class It>
  void append(It first, It last) {
    count += static_cast<std::size_t>(last - first);
    if (v != nullptr) v->insert(v->end(), first, last);
  }
};

// Reads a name that must not be compressed (RFC 3597 §4: types defined after
// RFC 1035, and every name inside uncompressed RDATA). Appends its octets.
Error read_plain_name(Reader& r, Sink& out) {
  std::size_t start = r.position();
  std::size_t len = 0;
  for (;;) {
    if (!r.has(1)) return make_error(Errc::truncated, r.position());
    std::uint8_t b = *r.here();
    if (b > kMaxLabel) {
      return make_error((b & 0xC0) == 0xC0 ? Errc::bad_rdata : Errc::bad_label_type, r.position());
    }
    if (!r.has(1u + b)) return make_error(Errc::truncated, r.position());
    len += 1u + b;
    if (len > kMaxNameWire) return make_error(Errc::name_too_long, r.position());
    r.skip(1u + b);
    if (b == 0) break;
  }
  out.append(r.data() + start, r.data() + r.position());
  return {};
}

Error copy_fixed(Reader& r, std::size_t n, Sink& out) {
  if (!r.has(n)) return make_error(Errc::bad_rdata, r.position());
  auto s = r.bytes(n);
  out.append(s.begin(), s.end());
  return {};
}

Error copy_counted(Reader& r, std::size_t width, Sink& out) {
  if (!r.has(width)) return make_error(Errc::bad_rdata, r.position());
  std::size_t at = r.position();
  std::size_t n = width == 1 ? r.u8() : r.u16();
  r.seek(at);
  return copy_fixed(r, width + n, out);
}

// RFC 4034 §4.1.2: windows in increasing order, each 1..32 octets long with
// a non-zero last octet.
Error check_bitmap(Reader& r, Sink& out) {
  int last_window = -1;
  while (r.remaining() > 0) {
    std::size_t at = r.position();
    if (!r.has(2)) return make_error(Errc::bad_rdata, at);
    std::uint8_t window = r.u8();
    std::uint8_t len = r.u8();
    if (window <= last_window || len == 0 || len > 32 || !r.has(len) || r.here()[len - 1] == 0) {
      return make_error(Errc::bad_rdata, at);
    }
    last_window = window;
    r.seek(at);
    auto s = r.bytes(2u + len);
    out.append(s.begin(), s.end());
  }
  return {};
}

// Decodes the fields of `d` from `r` (its limit is the end of the RDATA).
// `message` is true when `r` reads a whole message, where the RFC 1035 names
// may be compressed; false for uncompressed RDATA.
Error decode_fields(const detail::Descriptor& d, Reader& r, bool message, Sink& out) {
  std::size_t rdata_start = r.position();
  for (std::size_t i = 0; i < d.count; ++i) {
    Error e;
    switch (d.fields[i]) {
      case Field::u8:
        e = copy_fixed(r, 1, out);
        break;
      case Field::u16:
      case Field::type:
      case Field::cert_type:
        e = copy_fixed(r, 2, out);
        break;
      case Field::u32:
      case Field::time:
      case Field::a:
        e = copy_fixed(r, 4, out);
        break;
      case Field::u48:
      case Field::eui48:
        e = copy_fixed(r, 6, out);
        break;
      case Field::eui64:
        e = copy_fixed(r, 8, out);
        break;
      case Field::aaaa:
        e = copy_fixed(r, 16, out);
        break;
      case Field::name_c:
      case Field::name_d:
        if (message) {
          auto n = Name::from_wire(r);
          if (!n) return n.error();
          auto w = n->wire();
          out.append(w.begin(), w.end());
          break;
        }
        [[fallthrough]];
      case Field::name:
        e = read_plain_name(r, out);
        break;
      case Field::cstr:
        e = copy_counted(r, 1, out);
        break;
      case Field::cstr_rest:
        if (r.remaining() == 0) return make_error(Errc::bad_rdata, r.position());
        while (r.remaining() > 0 && !e) e = copy_counted(r, 1, out);
        break;
      case Field::tag: {
        if (!r.has(1) || r.here()[0] == 0 || r.here()[0] > 15)
          return make_error(Errc::bad_rdata, r.position());
        std::size_t at = r.position();
        e = copy_counted(r, 1, out);
        if (e) break;
        for (std::size_t k = at + 1; k < r.position(); ++k) {
          std::uint8_t c = r.data()[k];
          bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
          if (!alnum) return make_error(Errc::bad_rdata, k);
        }
        break;
      }
      case Field::text_rest:
      case Field::b64_rest:
      case Field::hex_rest:
        e = copy_fixed(r, r.remaining(), out);
        break;
      case Field::hex_u8:
      case Field::b32_u8:
        e = copy_counted(r, 1, out);
        break;
      case Field::b64_u16:
        e = copy_counted(r, 2, out);
        break;
      case Field::bitmap:
        e = check_bitmap(r, out);
        break;
      case Field::svc_params: {
        std::size_t at = r.position();
        auto s = r.bytes(r.remaining());
        long bad = detail::svc_params_check(s);
        if (bad >= 0) return make_error(Errc::bad_rdata, at + static_cast<std::size_t>(bad));
        out.append(s.begin(), s.end());
        break;
      }
      case Field::loc: {
        std::size_t at = r.position();
        long bad = detail::loc_wire_check(std::span(r.here(), r.has(16) ? 16 : 0));
        if (bad >= 0) return make_error(Errc::bad_rdata, at + static_cast<std::size_t>(bad));
        e = copy_fixed(r, 16, out);
        break;
      }
      case Field::ipseckey_gw: {
        // The gateway type is the second octet of this RDATA (RFC 4025 §2.1).
        std::uint8_t gw_type = r.data()[rdata_start + 1];
        switch (gw_type) {
          case 0:
            break;
          case 1:
            e = copy_fixed(r, 4, out);
            break;
          case 2:
            e = copy_fixed(r, 16, out);
            break;
          case 3:
            e = read_plain_name(r, out);
            break;
          default:
            return make_error(Errc::bad_rdata, rdata_start + 1);
        }
        break;
      }
    }
    if (e) return e;
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
    grows |= d->fields[i] == Field::name_c || d->fields[i] == Field::name_d;
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
    for (std::size_t i = 0; i < d->count; ++i) compressible |= d->fields[i] == Field::name_c;
  }
  if (!compressible) {
    w.bytes(rdata);
    return;
  }
  // Only RFC 1035 types have name_c fields, and their layouts hold nothing
  // but u16, u32 and names. RDATA made by the decoders or the text parser is
  // valid; RDATA built by hand might not be, so the walk is bounds-checked
  // and anything that does not fit the layout is written verbatim.
  if (rdata_validate(t, rdata)) {
    w.bytes(rdata);
    return;
  }
  std::size_t pos = 0;
  for (std::size_t i = 0; i < d->count; ++i) {
    switch (d->fields[i]) {
      case Field::u16:
        w.bytes(rdata.subspan(pos, 2));
        pos += 2;
        break;
      case Field::u32:
        w.bytes(rdata.subspan(pos, 4));
        pos += 4;
        break;
      case Field::name_c: {
        std::size_t end = pos;
        while (rdata[end] != 0) end += 1u + rdata[end];
        auto n = Name::from_uncompressed(rdata.subspan(pos, end + 1 - pos));
        if (n) map->write_name(w, n.value());
        pos = end + 1;
        break;
      }
      default:
        break;  // not reached for name_c layouts
    }
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
