// RDATA in presentation form (RFC 1035 §5.1 and each type's RFC), driven by
// the same field layouts as the wire codec.
#include <charconv>
#include <set>

#include "dns/detail/loc.hpp"
#include "dns/detail/rdata_schema.hpp"
#include "dns/detail/svcb.hpp"
#include "dns/detail/text_codecs.hpp"
#include "dns/rdata.hpp"

namespace herald::dns {
namespace {

using detail::Field;

std::uint64_t get_be(const std::uint8_t* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

void put_be(std::vector<std::uint8_t>& out, std::uint64_t v, std::size_t n) {
  for (std::size_t i = n; i-- > 0;) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// RFC 4398 §2.1 certificate types.
constexpr std::pair<std::string_view, std::uint16_t> kCertTypes[] = {
    {"PKIX", 1}, {"SPKI", 2},   {"PGP", 3},     {"IPKIX", 4}, {"ISPKI", 5},
    {"IPGP", 6}, {"ACPKIX", 7}, {"IACPKIX", 8}, {"URI", 253}, {"OID", 254}};

std::string_view cert_mnemonic(std::uint16_t v) {
  for (const auto& [m, value] : kCertTypes) {
    if (value == v) return m;
  }
  return {};
}

void generic_to_text(std::span<const std::uint8_t> rdata, std::string& out) {
  out += "\\# ";
  out += std::to_string(rdata.size());
  if (!rdata.empty()) {
    out += ' ';
    detail::hex_encode(rdata, out);
  }
}

std::size_t name_length(std::span<const std::uint8_t> rdata, std::size_t pos) {
  std::size_t p = pos;
  while (rdata[p] != 0) p += 1u + rdata[p];
  return p + 1 - pos;
}

void quoted(std::string& out, std::span<const std::uint8_t> s) {
  out += '"';
  append_escaped(out, s, false);
  out += '"';
}

void bitmap_to_text(std::span<const std::uint8_t> b, std::string& out) {
  std::size_t i = 0;
  while (i + 2 <= b.size()) {
    std::uint8_t window = b[i], len = b[i + 1];
    for (std::size_t k = 0; k < len; ++k) {
      for (int bit = 0; bit < 8; ++bit) {
        if (b[i + 2 + k] & (0x80 >> bit)) {
          out += ' ';
          out += type_to_text(RRType{static_cast<std::uint16_t>(window * 256 + k * 8 + bit)});
        }
      }
    }
    i += 2u + len;
  }
}

void eui_to_text(std::span<const std::uint8_t> s, std::string& out) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += '-';
    detail::hex_encode(s.subspan(i, 1), out, false);
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
    Field f = d->fields[i];
    bool rest_empty = pos == rdata.size() && (f == Field::b64_rest || f == Field::hex_rest ||
                                              f == Field::bitmap || f == Field::svc_params);
    if (i > 0 && !rest_empty && f != Field::bitmap && f != Field::svc_params) out += ' ';
    switch (f) {
      case Field::u8:
        out += std::to_string(rdata[pos++]);
        break;
      case Field::u16:
        out += std::to_string(get_be(&rdata[pos], 2));
        pos += 2;
        break;
      case Field::cert_type: {
        auto v = static_cast<std::uint16_t>(get_be(&rdata[pos], 2));
        std::string_view m = cert_mnemonic(v);
        out += m.empty() ? std::to_string(v) : std::string(m);
        pos += 2;
        break;
      }
      case Field::u32:
        out += std::to_string(get_be(&rdata[pos], 4));
        pos += 4;
        break;
      case Field::u48:
        out += std::to_string(get_be(&rdata[pos], 6));
        pos += 6;
        break;
      case Field::type:
        out += type_to_text(RRType{static_cast<std::uint16_t>(get_be(&rdata[pos], 2))});
        pos += 2;
        break;
      case Field::time:
        detail::time_encode(static_cast<std::uint32_t>(get_be(&rdata[pos], 4)), out);
        pos += 4;
        break;
      case Field::name_c:
      case Field::name_d:
      case Field::name: {
        std::size_t n = name_length(rdata, pos);
        auto name = Name::from_uncompressed(rdata.subspan(pos, n));
        if (name) name->append_text(out);
        pos += n;
        break;
      }
      case Field::a:
        detail::append_ipv4(&rdata[pos], out);
        pos += 4;
        break;
      case Field::aaaa:
        detail::append_ipv6(&rdata[pos], out);
        pos += 16;
        break;
      case Field::cstr:
        quoted(out, rdata.subspan(pos + 1, rdata[pos]));
        pos += 1u + rdata[pos];
        break;
      case Field::cstr_rest:
        for (bool first = true; pos < rdata.size(); first = false) {
          if (!first) out += ' ';
          quoted(out, rdata.subspan(pos + 1, rdata[pos]));
          pos += 1u + rdata[pos];
        }
        break;
      case Field::text_rest:
        quoted(out, rdata.subspan(pos));
        pos = rdata.size();
        break;
      case Field::tag:
        // Safety: validated alphanumeric octets, read as chars of the same size
        out.append(reinterpret_cast<const char*>(&rdata[pos + 1]), rdata[pos]);
        pos += 1u + rdata[pos];
        break;
      case Field::b64_rest:
        detail::base64_encode(rdata.subspan(pos), out);
        pos = rdata.size();
        break;
      case Field::hex_rest:
        detail::hex_encode(rdata.subspan(pos), out);
        pos = rdata.size();
        break;
      case Field::hex_u8:
        if (rdata[pos] == 0) out += '-';
        detail::hex_encode(rdata.subspan(pos + 1, rdata[pos]), out);
        pos += 1u + rdata[pos];
        break;
      case Field::b32_u8:
        if (rdata[pos] == 0) out += '-';
        detail::base32hex_encode(rdata.subspan(pos + 1, rdata[pos]), out);
        pos += 1u + rdata[pos];
        break;
      case Field::bitmap:
        bitmap_to_text(rdata.subspan(pos), out);
        pos = rdata.size();
        break;
      case Field::b64_u16: {
        std::size_t n = get_be(&rdata[pos], 2);
        out += std::to_string(n);
        if (n > 0) {
          out += ' ';
          detail::base64_encode(rdata.subspan(pos + 2, n), out);
        }
        pos += 2 + n;
        break;
      }
      case Field::eui48:
        eui_to_text(rdata.subspan(pos, 6), out);
        pos += 6;
        break;
      case Field::eui64:
        eui_to_text(rdata.subspan(pos, 8), out);
        pos += 8;
        break;
      case Field::svc_params:
        detail::svc_params_to_text(rdata.subspan(pos), out);
        pos = rdata.size();
        break;
      case Field::loc:
        detail::loc_to_text(rdata, out);
        pos = rdata.size();
        break;
      case Field::ipseckey_gw:
        switch (rdata[1]) {
          case 0:
            out += '.';
            break;
          case 1:
            detail::append_ipv4(&rdata[pos], out);
            pos += 4;
            break;
          case 2:
            detail::append_ipv6(&rdata[pos], out);
            pos += 16;
            break;
          default: {
            std::size_t n = name_length(rdata, pos);
            auto name = Name::from_uncompressed(rdata.subspan(pos, n));
            if (name) name->append_text(out);
            pos += n;
          }
        }
        break;
    }
  }
}

namespace {

// An unsigned decimal of at most `max`; u32 fields accept BIND TTL units too
// (1w2d3h4m5s), as zone files use them in SOA timers.
bool parse_uint(std::string_view s, std::uint64_t max, bool units, std::uint64_t& out) {
  return detail::decimal_decode(s, max, units, out);
}

bool parse_eui(std::string_view s, std::size_t n, std::vector<std::uint8_t>& out) {
  if (s.size() != n * 3 - 1) return false;
  std::string hex;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i % 3 == 2) {
      if (s[i] != '-') return false;
    } else {
      hex += s[i];
    }
  }
  return detail::hex_decode(hex, out);
}

class TextReader {
 public:
  TextReader(std::span<const TextToken> tokens) : tokens_(tokens) {}  // NOLINT
  bool done() const { return i_ == tokens_.size(); }
  const TextToken* next() { return done() ? nullptr : &tokens_[i_++]; }
  std::span<const TextToken> rest() {
    auto r = tokens_.subspan(i_);
    i_ = tokens_.size();
    return r;
  }
  std::size_t offset() const {
    if (!done()) return tokens_[i_].offset;
    if (tokens_.empty()) return 0;
    const TextToken& last = tokens_.back();
    return last.offset + last.text.size();
  }

 private:
  std::span<const TextToken> tokens_;
  std::size_t i_ = 0;
};

Error parse_field(Field f, TextReader& in, const Name& origin, std::vector<std::uint8_t>& out) {
  std::size_t at = in.offset();
  auto need = [&](const char* what, const TextToken*& tok) -> Error {
    tok = in.next();
    if (tok == nullptr) return text_error(at, std::string("expected ") + what);
    return {};
  };
  const TextToken* tok = nullptr;
  switch (f) {
    case Field::u8:
    case Field::u16:
    case Field::u32:
    case Field::u48: {
      static constexpr std::size_t kWidth[] = {1, 2, 4, 6};
      std::size_t w = kWidth[static_cast<int>(f)];
      if (auto e = need("a number", tok)) return e;
      std::uint64_t v;
      std::uint64_t max = w == 6 ? 0xFFFFFFFFFFFFull : (std::uint64_t{1} << (8 * w)) - 1;
      if (tok->quoted || !parse_uint(tok->text, max, f == Field::u32, v))
        return text_error(tok->offset, "expected a number up to " + std::to_string(max));
      put_be(out, v, w);
      return {};
    }
    case Field::cert_type: {
      if (auto e = need("a certificate type", tok)) return e;
      for (const auto& [mnemonic, value] : kCertTypes) {
        if (tok->text == mnemonic) {
          put_be(out, value, 2);
          return {};
        }
      }
      std::uint64_t v;
      if (!parse_uint(tok->text, 65535, false, v))
        return text_error(tok->offset, "expected a certificate type (number or PKIX, PGP, ...)");
      put_be(out, v, 2);
      return {};
    }
    case Field::type: {
      if (auto e = need("a type", tok)) return e;
      auto ty = type_from_text(tok->text);
      if (!ty) return text_error(tok->offset, "expected a type mnemonic or TYPE###");
      put_be(out, ty->value, 2);
      return {};
    }
    case Field::time: {
      if (auto e = need("a time", tok)) return e;
      std::uint32_t v;
      if (!detail::time_decode(tok->text, v))
        return text_error(tok->offset, "expected YYYYMMDDHHmmSS or seconds");
      put_be(out, v, 4);
      return {};
    }
    case Field::name_c:
    case Field::name_d:
    case Field::name: {
      if (auto e = need("a domain name", tok)) return e;
      if (tok->quoted) return text_error(tok->offset, "expected a domain name, not a string");
      if (tok->text == "@") {
        auto w = origin.wire();
        out.insert(out.end(), w.begin(), w.end());
        return {};
      }
      auto n = Name::from_text(tok->text, &origin);
      if (!n) {
        Error e = n.error();
        e.offset += static_cast<std::uint32_t>(tok->offset);
        return e;
      }
      auto w = n->wire();
      out.insert(out.end(), w.begin(), w.end());
      return {};
    }
    case Field::a:
    case Field::aaaa: {
      if (auto e = need("an address", tok)) return e;
      std::uint8_t addr[16];
      bool v4 = f == Field::a;
      if (!(v4 ? detail::parse_ipv4(tok->text, addr) : detail::parse_ipv6(tok->text, addr)))
        return text_error(tok->offset,
                          v4 ? "expected an IPv4 address" : "expected an IPv6 address");
      out.insert(out.end(), addr, addr + (v4 ? 4 : 16));
      return {};
    }
    case Field::cstr:
    case Field::cstr_rest: {
      bool first = true;
      while (first || (f == Field::cstr_rest && !in.done())) {
        first = false;
        if (auto e = need("a character-string", tok)) return e;
        std::vector<std::uint8_t> s;
        if (!detail::unescape(tok->text, s)) return text_error(tok->offset, "bad escape");
        if (s.size() > 255) return text_error(tok->offset, "character-string over 255 octets");
        out.push_back(static_cast<std::uint8_t>(s.size()));
        out.insert(out.end(), s.begin(), s.end());
      }
      return {};
    }
    case Field::text_rest: {
      if (auto e = need("a string", tok)) return e;
      if (!detail::unescape(tok->text, out)) return text_error(tok->offset, "bad escape");
      return {};
    }
    case Field::tag: {
      if (auto e = need("a tag", tok)) return e;
      std::string_view s = tok->text;
      bool ok = !s.empty() && s.size() <= 15;
      for (char c : s) {
        ok &= (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      }
      if (!ok) return text_error(tok->offset, "expected a tag of 1-15 letters and digits");
      out.push_back(static_cast<std::uint8_t>(s.size()));
      out.insert(out.end(), s.begin(), s.end());
      return {};
    }
    case Field::b64_rest:
    case Field::hex_rest: {
      std::string joined;
      for (const TextToken& t : in.rest()) joined += t.text;
      bool ok = f == Field::b64_rest ? detail::base64_decode(joined, out)
                                     : detail::hex_decode(joined, out);
      if (!ok) return text_error(at, f == Field::b64_rest ? "expected base64" : "expected hex");
      return {};
    }
    case Field::hex_u8:
    case Field::b32_u8: {
      if (auto e = need(f == Field::hex_u8 ? "hex or -" : "base32hex", tok)) return e;
      std::vector<std::uint8_t> v;
      bool ok = tok->text == "-" || (f == Field::hex_u8 ? detail::hex_decode(tok->text, v)
                                                        : detail::base32hex_decode(tok->text, v));
      if (!ok || v.size() > 255) return text_error(tok->offset, "bad encoded field");
      out.push_back(static_cast<std::uint8_t>(v.size()));
      out.insert(out.end(), v.begin(), v.end());
      return {};
    }
    case Field::bitmap: {
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
        block[byte] |= static_cast<std::uint8_t>(0x80 >> (ty & 7));
        len = std::max(len, byte + 1);
      }
      flush();
      return {};
    }
    case Field::b64_u16: {
      if (auto e = need("a length", tok)) return e;
      std::uint64_t n;
      if (!parse_uint(tok->text, 65535, false, n))
        return text_error(tok->offset, "expected a length");
      std::vector<std::uint8_t> v;
      if (n > 0) {
        if (auto e = need("base64", tok)) return e;
        if (!detail::base64_decode(tok->text, v) || v.size() != n)
          return text_error(tok->offset, "expected base64 of the given length");
      }
      put_be(out, n, 2);
      out.insert(out.end(), v.begin(), v.end());
      return {};
    }
    case Field::eui48:
    case Field::eui64: {
      if (auto e = need("an EUI address", tok)) return e;
      if (!parse_eui(tok->text, f == Field::eui48 ? 6 : 8, out))
        return text_error(tok->offset, "expected xx-xx-... hex pairs");
      return {};
    }
    case Field::svc_params:
      return detail::svc_params_from_text(in.rest(), out);
    case Field::loc:
      return detail::loc_from_text(in.rest(), at, out);
    case Field::ipseckey_gw: {
      if (auto e = need("a gateway", tok)) return e;
      std::uint8_t gw_type = out.size() > 1 ? out[1] : 0xFF;
      std::uint8_t addr[16];
      switch (gw_type) {
        case 0:
          if (tok->text != ".") return text_error(tok->offset, "expected '.' for no gateway");
          return {};
        case 1:
          if (!detail::parse_ipv4(tok->text, addr)) return text_error(tok->offset, "expected IPv4");
          out.insert(out.end(), addr, addr + 4);
          return {};
        case 2:
          if (!detail::parse_ipv6(tok->text, addr)) return text_error(tok->offset, "expected IPv6");
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
  }
  return {};
}

}  // namespace

Result<std::vector<std::uint8_t>> rdata_from_text(RRType t, std::span<const TextToken> tokens,
                                                  const Name& origin) {
  std::vector<std::uint8_t> out;
  if (!tokens.empty() && !tokens[0].quoted && tokens[0].text == "\\#") {
    // RFC 3597 §5: \# <length> <hex>..., for any type.
    std::uint64_t n;
    if (tokens.size() < 2 || !parse_uint(tokens[1].text, 65535, false, n))
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
  TextReader in(tokens);
  for (std::size_t i = 0; i < d->count; ++i) {
    if (Error e = parse_field(d->fields[i], in, origin, out)) return e;
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
