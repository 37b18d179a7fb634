#include "dns/detail/rdata_fields.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "dns/detail/loc.hpp"
#include "dns/detail/svcb.hpp"
#include "dns/detail/text_codecs.hpp"
#include "dns/types.hpp"

namespace herald::dns::detail {
namespace {

// Helpers of several kinds. Field functions are named read_ (wire), print_
// (text out) and parse_ (text in), and grouped below by kind.

std::uint64_t get_be(const std::uint8_t* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

void put_be(std::vector<std::uint8_t>& out, std::uint64_t v, std::size_t n) {
  // Safety: one octet of `v` per step; dropping the higher bits is the point
  for (std::size_t i = n; i-- > 0;) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
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

template <std::size_t N>
Error read_fixed(Reader& r, const WireContext&, Sink& out) {
  return copy_fixed(r, N, out);
}

// An octet or u16 length, then that many octets.
template <std::size_t Width>
Error read_counted(Reader& r, const WireContext&, Sink& out) {
  return copy_counted(r, Width, out);
}

// Octets to the end of the RDATA, any number (none included).
Error read_rest(Reader& r, const WireContext&, Sink& out) {
  return copy_fixed(r, r.remaining(), out);
}

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

// The length of the uncompressed name at `pos` of valid RDATA.
std::size_t name_length(std::span<const std::uint8_t> rdata, std::size_t pos) {
  std::size_t p = pos;
  while (rdata[p] != 0) p += 1u + rdata[p];
  return p + 1 - pos;
}

std::size_t print_name(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  std::size_t n = name_length(rdata, pos);
  auto name = Name::from_uncompressed(rdata.subspan(pos, n));
  if (name) name->append_text(out);
  return pos + n;
}

void quoted(std::string& out, std::span<const std::uint8_t> s) {
  out += '"';
  append_escaped(out, s, false);
  out += '"';
}

// The next token; when the text has ended, the error says what the field
// expected, at `at` (where the field began).
Error need(TextReader& in, std::size_t at, const char* what, const TextToken*& tok) {
  tok = in.next();
  if (tok == nullptr) return text_error(at, std::string("expected ") + what);
  return {};
}

// u8, u16, u32, u48: unsigned integers, decimal in text. u32 accepts the BIND
// TTL units too (1w2d3h4m5s), as zone files use them in SOA timers.

template <std::size_t W>
std::size_t print_uint(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  out += std::to_string(get_be(&rdata[pos], W));
  return pos + W;
}

template <std::size_t W, bool Units>
Error parse_uint(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  constexpr std::uint64_t kMax = W == 6 ? 0xFFFFFFFFFFFFull : (std::uint64_t{1} << (8 * W)) - 1;
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a number", tok)) return e;
  std::uint64_t v;
  if (tok->quoted || !decimal_decode(tok->text, kMax, Units, v))
    return text_error(tok->offset, "expected a number up to " + std::to_string(kMax));
  put_be(out, v, W);
  return {};
}

// type: a u16 shown as a type mnemonic (RRSIG type covered).

std::size_t print_type(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  // Safety: two octets, at most 65535
  out += type_to_text(RRType{static_cast<std::uint16_t>(get_be(&rdata[pos], 2))});
  return pos + 2;
}

Error parse_type(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a type", tok)) return e;
  auto ty = type_from_text(tok->text);
  if (!ty) return text_error(tok->offset, "expected a type mnemonic or TYPE###");
  put_be(out, ty->value, 2);
  return {};
}

// cert_type: a u16 with the RFC 4398 §2.1 certificate type mnemonics.

constexpr std::pair<std::string_view, std::uint16_t> kCertTypes[] = {
    {"PKIX", 1}, {"SPKI", 2},   {"PGP", 3},     {"IPKIX", 4}, {"ISPKI", 5},
    {"IPGP", 6}, {"ACPKIX", 7}, {"IACPKIX", 8}, {"URI", 253}, {"OID", 254}};

std::size_t print_cert_type(std::span<const std::uint8_t> rdata, std::size_t pos,
                            std::string& out) {
  // Safety: two octets, at most 65535
  auto v = static_cast<std::uint16_t>(get_be(&rdata[pos], 2));
  for (const auto& [mnemonic, value] : kCertTypes) {
    if (value == v) {
      out += mnemonic;
      return pos + 2;
    }
  }
  out += std::to_string(v);
  return pos + 2;
}

Error parse_cert_type(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a certificate type", tok)) return e;
  for (const auto& [mnemonic, value] : kCertTypes) {
    if (tok->text == mnemonic) {
      put_be(out, value, 2);
      return {};
    }
  }
  std::uint64_t v;
  if (!decimal_decode(tok->text, 65535, false, v))
    return text_error(tok->offset, "expected a certificate type (number or PKIX, PGP, ...)");
  put_be(out, v, 2);
  return {};
}

// name_c, name_d, name: domain names. They differ on the wire only: the first
// two are decompressed when read from a message, the last never is.

Error read_decompressed_name(Reader& r, const WireContext& c, Sink& out) {
  if (!c.message) return read_plain_name(r, out);
  auto n = Name::from_wire(r);
  if (!n) return n.error();
  auto w = n->wire();
  out.append(w.begin(), w.end());
  return {};
}

Error read_name(Reader& r, const WireContext&, Sink& out) {
  return read_plain_name(r, out);
}

Error parse_name(TextReader& in, const Name& origin, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a domain name", tok)) return e;
  if (tok->quoted) return text_error(tok->offset, "expected a domain name, not a string");
  if (tok->text == "@") {
    auto w = origin.wire();
    out.insert(out.end(), w.begin(), w.end());
    return {};
  }
  auto n = Name::from_text(tok->text, &origin);
  if (!n) {
    Error e = n.error();
    // Safety: Error offsets are 32 bits, as make_error's are; texts stay far below 4 GiB
    e.offset += static_cast<std::uint32_t>(tok->offset);
    return e;
  }
  auto w = n->wire();
  out.insert(out.end(), w.begin(), w.end());
  return {};
}

// a, aaaa: addresses.

std::size_t print_a(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  append_ipv4(&rdata[pos], out);
  return pos + 4;
}

std::size_t print_aaaa(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  append_ipv6(&rdata[pos], out);
  return pos + 16;
}

template <std::size_t N>
Error parse_address(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  static_assert(N == 4 || N == 16);
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "an address", tok)) return e;
  std::uint8_t addr[16];
  if (!(N == 4 ? parse_ipv4(tok->text, addr) : parse_ipv6(tok->text, addr)))
    return text_error(tok->offset,
                      N == 4 ? "expected an IPv4 address" : "expected an IPv6 address");
  out.insert(out.end(), addr, addr + N);
  return {};
}

// cstr: one <character-string>; cstr_rest: one or more to the end (TXT).

Error read_cstr_rest(Reader& r, const WireContext&, Sink& out) {
  if (r.remaining() == 0) return make_error(Errc::bad_rdata, r.position());
  Error e;
  while (r.remaining() > 0 && !e) e = copy_counted(r, 1, out);
  return e;
}

std::size_t print_cstr(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  quoted(out, rdata.subspan(pos + 1, rdata[pos]));
  return pos + 1u + rdata[pos];
}

std::size_t print_cstr_rest(std::span<const std::uint8_t> rdata, std::size_t pos,
                            std::string& out) {
  for (bool first = true; pos < rdata.size(); first = false) {
    if (!first) out += ' ';
    pos = print_cstr(rdata, pos, out);
  }
  return pos;
}

template <bool Rest>
Error parse_cstrs(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  std::size_t at = in.offset();
  bool first = true;
  while (first || (Rest && !in.done())) {
    first = false;
    const TextToken* tok = nullptr;
    if (auto e = need(in, at, "a character-string", tok)) return e;
    std::vector<std::uint8_t> s;
    if (!unescape(tok->text, s)) return text_error(tok->offset, "bad escape");
    if (s.size() > 255) return text_error(tok->offset, "character-string over 255 octets");
    // Safety: at most 255, checked above
    out.push_back(static_cast<std::uint8_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  return {};
}

// text_rest: octets to the end as one quoted string (CAA value, URI target).

std::size_t print_text_rest(std::span<const std::uint8_t> rdata, std::size_t pos,
                            std::string& out) {
  quoted(out, rdata.subspan(pos));
  return rdata.size();
}

Error parse_text_rest(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a string", tok)) return e;
  if (!unescape(tok->text, out)) return text_error(tok->offset, "bad escape");
  return {};
}

// tag: u8 length and 1..15 letters or digits, bare in text (CAA tag).

bool tag_char(std::uint8_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

Error read_tag(Reader& r, const WireContext&, Sink& out) {
  if (!r.has(1) || r.here()[0] == 0 || r.here()[0] > 15)
    return make_error(Errc::bad_rdata, r.position());
  std::size_t at = r.position();
  if (Error e = copy_counted(r, 1, out)) return e;
  for (std::size_t k = at + 1; k < r.position(); ++k) {
    if (!tag_char(r.data()[k])) return make_error(Errc::bad_rdata, k);
  }
  return {};
}

std::size_t print_tag(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  // Safety: validated alphanumeric octets, read as chars of the same size
  out.append(reinterpret_cast<const char*>(&rdata[pos + 1]), rdata[pos]);
  return pos + 1u + rdata[pos];
}

Error parse_tag(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a tag", tok)) return e;
  std::string_view s = tok->text;
  bool ok = !s.empty() && s.size() <= 15;
  // Safety: chars viewed as octets, same size; the check is on ASCII values
  for (char c : s) ok &= tag_char(static_cast<std::uint8_t>(c));
  if (!ok) return text_error(tok->offset, "expected a tag of 1-15 letters and digits");
  // Safety: at most 15, checked above
  out.push_back(static_cast<std::uint8_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
  return {};
}

// b64_rest, hex_rest: octets to the end, base64 or hex; the text may be
// split into several tokens (keys and digests often are).

std::size_t print_b64_rest(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  base64_encode(rdata.subspan(pos), out);
  return rdata.size();
}

std::size_t print_hex_rest(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  hex_encode(rdata.subspan(pos), out);
  return rdata.size();
}

template <bool Base64>
Error parse_encoded_rest(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  std::size_t at = in.offset();
  std::string joined;
  for (const TextToken& t : in.rest()) joined += t.text;
  bool ok = Base64 ? base64_decode(joined, out) : hex_decode(joined, out);
  if (!ok) return text_error(at, Base64 ? "expected base64" : "expected hex");
  return {};
}

// hex_u8: u8 length and octets in hex, "-" for none (NSEC3 salt); b32_u8:
// the same in base32hex (NSEC3 next hashed owner).

std::size_t print_hex_u8(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  if (rdata[pos] == 0) out += '-';
  hex_encode(rdata.subspan(pos + 1, rdata[pos]), out);
  return pos + 1u + rdata[pos];
}

std::size_t print_b32_u8(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  if (rdata[pos] == 0) out += '-';
  base32hex_encode(rdata.subspan(pos + 1, rdata[pos]), out);
  return pos + 1u + rdata[pos];
}

template <bool Hex>
Error parse_encoded_u8(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), Hex ? "hex or -" : "base32hex", tok)) return e;
  std::vector<std::uint8_t> v;
  bool ok = tok->text == "-" || (Hex ? hex_decode(tok->text, v) : base32hex_decode(tok->text, v));
  if (!ok || v.size() > 255) return text_error(tok->offset, "bad encoded field");
  // Safety: at most 255, checked above
  out.push_back(static_cast<std::uint8_t>(v.size()));
  out.insert(out.end(), v.begin(), v.end());
  return {};
}

// bitmap: the RFC 4034 §4.1.2 type bitmap, to the end of the RDATA.

// Windows in increasing order, each 1..32 octets long with a non-zero last
// octet.
Error read_bitmap(Reader& r, const WireContext&, Sink& out) {
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

std::size_t print_bitmap(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  auto b = rdata.subspan(pos);
  std::size_t i = 0;
  while (i + 2 <= b.size()) {
    std::uint8_t window = b[i], len = b[i + 1];
    for (std::size_t k = 0; k < len; ++k) {
      for (int bit = 0; bit < 8; ++bit) {
        if (b[i + 2 + k] & (0x80 >> bit)) {
          out += ' ';
          // Safety: window * 256 + k * 8 + bit <= 255 * 256 + 31 * 8 + 7 = 65535
          out += type_to_text(RRType{static_cast<std::uint16_t>(window * 256 + k * 8 + bit)});
        }
      }
    }
    i += 2u + len;
  }
  return rdata.size();
}

Error parse_bitmap(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  std::set<std::uint16_t> types;
  for (const TextToken& t : in.rest()) {
    auto ty = type_from_text(t.text);
    if (!ty) return text_error(t.offset, "expected a type in the bitmap");
    types.insert(ty->value);
  }
  std::uint8_t block[32];
  int window = -1;
  std::size_t len = 0;
  auto flush = [&] {
    if (window < 0) return;
    // Safety: a window is a type's high octet, len at most 32
    out.push_back(static_cast<std::uint8_t>(window));
    out.push_back(static_cast<std::uint8_t>(len));
    out.insert(out.end(), block, block + len);
  };
  for (std::uint16_t ty : types) {
    if (ty >> 8 != window) {
      flush();
      window = ty >> 8;
      len = 0;
      std::fill(std::begin(block), std::end(block), 0);
    }
    std::size_t byte = (ty & 0xFF) / 8;
    // Safety: a single bit of an octet
    block[byte] |= static_cast<std::uint8_t>(0x80 >> (ty & 7));
    len = std::max(len, byte + 1);
  }
  flush();
  return {};
}

// time: a u32 as YYYYMMDDHHmmSS (RRSIG expiration and inception).

std::size_t print_time(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  // Safety: four octets, at most 2^32 - 1
  time_encode(static_cast<std::uint32_t>(get_be(&rdata[pos], 4)), out);
  return pos + 4;
}

Error parse_time(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a time", tok)) return e;
  std::uint32_t v;
  if (!time_decode(tok->text, v))
    return text_error(tok->offset, "expected YYYYMMDDHHmmSS or seconds");
  put_be(out, v, 4);
  return {};
}

// b64_u16: u16 length and octets, the length then base64 in text (TSIG MAC
// and other data).

std::size_t print_b64_u16(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  std::size_t n = get_be(&rdata[pos], 2);
  out += std::to_string(n);
  if (n > 0) {
    out += ' ';
    base64_encode(rdata.subspan(pos + 2, n), out);
  }
  return pos + 2 + n;
}

Error parse_b64_u16(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  std::size_t at = in.offset();
  const TextToken* tok = nullptr;
  if (auto e = need(in, at, "a length", tok)) return e;
  std::uint64_t n;
  if (!decimal_decode(tok->text, 65535, false, n))
    return text_error(tok->offset, "expected a length");
  std::vector<std::uint8_t> v;
  if (n > 0) {
    if (auto e = need(in, at, "base64", tok)) return e;
    if (!base64_decode(tok->text, v) || v.size() != n)
      return text_error(tok->offset, "expected base64 of the given length");
  }
  put_be(out, n, 2);
  out.insert(out.end(), v.begin(), v.end());
  return {};
}

// eui48, eui64: RFC 7043 addresses, hex pairs joined by '-'.

template <std::size_t N>
std::size_t print_eui(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  for (std::size_t i = 0; i < N; ++i) {
    if (i) out += '-';
    hex_encode(rdata.subspan(pos + i, 1), out, false);
  }
  return pos + N;
}

template <std::size_t N>
Error parse_eui(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "an EUI address", tok)) return e;
  std::string_view s = tok->text;
  bool ok = s.size() == N * 3 - 1;
  std::string hex;
  for (std::size_t i = 0; ok && i < s.size(); ++i) {
    if (i % 3 == 2) {
      ok = s[i] == '-';
    } else {
      hex += s[i];
    }
  }
  if (!ok || !hex_decode(hex, out)) return text_error(tok->offset, "expected xx-xx-... hex pairs");
  return {};
}

// svc_params: RFC 9460 SvcParams to the end (detail/svcb.hpp).

Error read_svc_params(Reader& r, const WireContext&, Sink& out) {
  std::size_t at = r.position();
  auto s = r.bytes(r.remaining());
  long bad = svc_params_check(s);
  // Safety: svc_params_check returns an offset within `s`, or -1
  if (bad >= 0) return make_error(Errc::bad_rdata, at + static_cast<std::size_t>(bad));
  out.append(s.begin(), s.end());
  return {};
}

std::size_t print_svc_params(std::span<const std::uint8_t> rdata, std::size_t pos,
                             std::string& out) {
  svc_params_to_text(rdata.subspan(pos), out);
  return rdata.size();
}

Error parse_svc_params(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  return svc_params_from_text(in.rest(), out);
}

// ipseckey_gw: the RFC 4025 §2.1 gateway, whose form the gateway type (the
// RDATA's second octet) chooses: none, IPv4, IPv6 or a name.

Error read_gateway(Reader& r, const WireContext& c, Sink& out) {
  switch (r.data()[c.rdata_start + 1]) {
    case 0:
      return {};
    case 1:
      return copy_fixed(r, 4, out);
    case 2:
      return copy_fixed(r, 16, out);
    case 3:
      return read_plain_name(r, out);
    default:
      return make_error(Errc::bad_rdata, c.rdata_start + 1);
  }
}

std::size_t print_gateway(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  switch (rdata[1]) {
    case 0:
      out += '.';
      return pos;
    case 1:
      return print_a(rdata, pos, out);
    case 2:
      return print_aaaa(rdata, pos, out);
    default:
      return print_name(rdata, pos, out);
  }
}

Error parse_gateway(TextReader& in, const Name& origin, std::vector<std::uint8_t>& out) {
  const TextToken* tok = nullptr;
  if (auto e = need(in, in.offset(), "a gateway", tok)) return e;
  std::uint8_t gw_type = out.size() > 1 ? out[1] : 0xFF;
  std::uint8_t addr[16];
  switch (gw_type) {
    case 0:
      if (tok->text != ".") return text_error(tok->offset, "expected '.' for no gateway");
      return {};
    case 1:
      if (!parse_ipv4(tok->text, addr)) return text_error(tok->offset, "expected IPv4");
      out.insert(out.end(), addr, addr + 4);
      return {};
    case 2:
      if (!parse_ipv6(tok->text, addr)) return text_error(tok->offset, "expected IPv6");
      out.insert(out.end(), addr, addr + 16);
      return {};
    case 3: {
      auto n = Name::from_text(tok->text, &origin);
      if (!n) return text_error(tok->offset, "expected a gateway name");
      auto w = n->wire();
      out.insert(out.end(), w.begin(), w.end());
      return {};
    }
    default:
      return text_error(tok->offset, "gateway type must be 0-3");
  }
}

// loc: RFC 1876 LOC version 0, the whole 16-octet RDATA (detail/loc.hpp).

Error read_loc(Reader& r, const WireContext&, Sink& out) {
  std::size_t at = r.position();
  long bad = loc_wire_check(std::span(r.here(), r.has(16) ? 16 : 0));
  // Safety: loc_wire_check returns an offset within the 16 octets, or -1
  if (bad >= 0) return make_error(Errc::bad_rdata, at + static_cast<std::size_t>(bad));
  return copy_fixed(r, 16, out);
}

std::size_t print_loc(std::span<const std::uint8_t> rdata, std::size_t pos, std::string& out) {
  loc_to_text(rdata.subspan(pos), out);
  return rdata.size();
}

Error parse_loc(TextReader& in, const Name&, std::vector<std::uint8_t>& out) {
  std::size_t at = in.offset();
  return loc_from_text(in.rest(), at, out);
}

using F = Field;
using S = Spacing;
using C = Compression;

}  // namespace

// Indexed by Field; rows_in_order() below keeps it in step with the enum.
constexpr std::array<FieldKind, kFieldCount> kFieldKinds{{
    // field, wire (read), text out (print), text in (parse), spacing, names
    {F::u8, read_fixed<1>, print_uint<1>, parse_uint<1, false>, S::space, C::none},
    {F::u16, read_fixed<2>, print_uint<2>, parse_uint<2, false>, S::space, C::none},
    {F::u32, read_fixed<4>, print_uint<4>, parse_uint<4, true>, S::space, C::none},
    {F::u48, read_fixed<6>, print_uint<6>, parse_uint<6, false>, S::space, C::none},
    {F::type, read_fixed<2>, print_type, parse_type, S::space, C::none},
    {F::cert_type, read_fixed<2>, print_cert_type, parse_cert_type, S::space, C::none},
    {F::name_c, read_decompressed_name, print_name, parse_name, S::space, C::both},
    {F::name_d, read_decompressed_name, print_name, parse_name, S::space, C::decompress},
    {F::name, read_name, print_name, parse_name, S::space, C::none},
    {F::a, read_fixed<4>, print_a, parse_address<4>, S::space, C::none},
    {F::aaaa, read_fixed<16>, print_aaaa, parse_address<16>, S::space, C::none},
    {F::cstr, read_counted<1>, print_cstr, parse_cstrs<false>, S::space, C::none},
    {F::cstr_rest, read_cstr_rest, print_cstr_rest, parse_cstrs<true>, S::space, C::none},
    {F::text_rest, read_rest, print_text_rest, parse_text_rest, S::space, C::none},
    {F::tag, read_tag, print_tag, parse_tag, S::space, C::none},
    {F::b64_rest, read_rest, print_b64_rest, parse_encoded_rest<true>, S::none_empty, C::none},
    {F::hex_rest, read_rest, print_hex_rest, parse_encoded_rest<false>, S::none_empty, C::none},
    {F::hex_u8, read_counted<1>, print_hex_u8, parse_encoded_u8<true>, S::space, C::none},
    {F::b32_u8, read_counted<1>, print_b32_u8, parse_encoded_u8<false>, S::space, C::none},
    {F::bitmap, read_bitmap, print_bitmap, parse_bitmap, S::own, C::none},
    {F::time, read_fixed<4>, print_time, parse_time, S::space, C::none},
    {F::b64_u16, read_counted<2>, print_b64_u16, parse_b64_u16, S::space, C::none},
    {F::eui48, read_fixed<6>, print_eui<6>, parse_eui<6>, S::space, C::none},
    {F::eui64, read_fixed<8>, print_eui<8>, parse_eui<8>, S::space, C::none},
    {F::svc_params, read_svc_params, print_svc_params, parse_svc_params, S::own, C::none},
    {F::ipseckey_gw, read_gateway, print_gateway, parse_gateway, S::space, C::none},
    {F::loc, read_loc, print_loc, parse_loc, S::space, C::none},
}};

namespace {

// Every row where its enumerator says. A missing row at the end is
// value-initialised, as Field::u8 (0), so it fails here too. A row missing a
// function does not compile (-Wmissing-field-initializers, in -Wextra); the
// functions are not compared with nullptr here, which GCC cannot
// constant-evaluate under -fsanitize.
constexpr bool rows_in_order() {
  for (std::size_t i = 0; i < kFieldKinds.size(); ++i) {
    if (static_cast<std::size_t>(kFieldKinds[i].field) != i) return false;
  }
  return true;
}
static_assert(rows_in_order(), "one kFieldKinds row per Field, in enumerator order");

}  // namespace

}  // namespace herald::dns::detail
