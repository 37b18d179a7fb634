#include "dns/detail/svcb.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

#include "dns/detail/text_codecs.hpp"

namespace herald::dns::detail {
namespace {

constexpr std::string_view kKeyNames[] = {"mandatory", "alpn", "no-default-alpn", "port",
                                          "ipv4hint",  "ech",  "ipv6hint"};

std::uint16_t get16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}

void key_to_text(std::uint16_t key, std::string& out) {
  if (key < std::size(kKeyNames)) {
    out += kKeyNames[key];
  } else {
    out += "key";
    out += std::to_string(key);
  }
}

std::optional<std::uint16_t> key_from_text(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kKeyNames); ++i) {
    if (s == kKeyNames[i]) return static_cast<std::uint16_t>(i);
  }
  if (s.size() > 3 && s.substr(0, 3) == "key") {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(s.data() + 3, s.data() + s.size(), v);
    if (ec == std::errc{} && p == s.data() + s.size() && v <= 65535 &&
        (s.size() == 4 || s[3] != '0')) {
      return static_cast<std::uint16_t>(v);
    }
  }
  return std::nullopt;
}

// Whether one key's value is valid (RFC 9460 §7).
bool value_ok(std::uint16_t key, const std::uint8_t* v, std::size_t n) {
  switch (key) {
    case 0:  // mandatory: non-empty list of keys, increasing, not itself
      if (n == 0 || n % 2 != 0) return false;
      for (std::size_t i = 0; i < n; i += 2) {
        std::uint16_t k = get16(v + i);
        if (k == 0 || (i > 0 && k <= get16(v + i - 2))) return false;
      }
      return true;
    case 1: {  // alpn: non-empty list of non-empty character-strings
      if (n == 0) return false;
      std::size_t i = 0;
      while (i < n) {
        if (v[i] == 0 || i + 1 + v[i] > n) return false;
        i += 1u + v[i];
      }
      return true;
    }
    case 2:
      return n == 0;  // no-default-alpn
    case 3:
      return n == 2;  // port
    case 4:
      return n > 0 && n % 4 == 0;  // ipv4hint
    case 6:
      return n > 0 && n % 16 == 0;  // ipv6hint
    case 65535:
      return false;  // reserved ("invalid key")
    default:
      return true;  // ech and unknown keys: opaque
  }
}

// "=value", quoted only if the escaped value holds a character that would
// end a bare token (RFC 9460 prints alpn=h2,h3 bare, as ldns and kdig do).
void append_value(const std::string& value, std::string& out) {
  bool quote = value.empty() || value.find_first_of(" \t;()") != std::string::npos;
  out += '=';
  if (quote) out += '"';
  out += value;
  if (quote) out += '"';
}

}  // namespace

long svc_params_check(std::span<const std::uint8_t> params) noexcept {
  std::size_t i = 0;
  long last = -1;
  while (i < params.size()) {
    if (params.size() - i < 4) return static_cast<long>(i);
    std::uint16_t key = get16(params.data() + i);
    std::uint16_t len = get16(params.data() + i + 2);
    if (static_cast<long>(key) <= last) return static_cast<long>(i);
    if (params.size() - i - 4 < len) return static_cast<long>(i + 2);
    if (!value_ok(key, params.data() + i + 4, len)) return static_cast<long>(i + 4);
    last = key;
    i += 4u + len;
  }
  // Every key listed in mandatory must be present (RFC 9460 §8): the RR is
  // malformed otherwise. Both lists strictly increase (checked above: the
  // params' keys, and value_ok on mandatory's), so one merge-like walk
  // answers it: each step advances the params cursor or the mandatory one.
  // A nested search was quadratic, and any query reaches this through its
  // records: 10,899 mandatory keys in one 64 KB record cost ~195 ms (the security review's figure).
  // "mandatory" (key 0) is first if present.
  if (params.size() >= 4 && get16(params.data()) == 0) {
    const std::size_t len = get16(params.data() + 2);
    std::size_t j = 0;  // the params cursor, at a key
    for (std::size_t k = 0; k < len; k += 2) {
      const std::uint16_t want = get16(params.data() + 4 + k);
      while (j < params.size() && get16(params.data() + j) < want)
        j += 4u + get16(params.data() + j + 2);
      if (j >= params.size() || get16(params.data() + j) != want) return static_cast<long>(4 + k);
    }
  }
  return -1;
}

void svc_params_to_text(std::span<const std::uint8_t> params, std::string& out) {
  std::size_t i = 0;
  while (i + 4 <= params.size()) {
    std::uint16_t key = get16(params.data() + i);
    std::uint16_t len = get16(params.data() + i + 2);
    const std::uint8_t* v = params.data() + i + 4;
    out += ' ';
    key_to_text(key, out);
    switch (key) {
      case 0:
        out += '=';
        for (std::size_t k = 0; k < len; k += 2) {
          if (k) out += ',';
          key_to_text(get16(v + k), out);
        }
        break;
      case 1: {
        std::string value;
        std::size_t k = 0;
        while (k < len) {
          if (k > 0) value += ',';
          // Commas inside an ALPN id are escaped twice: once for the list,
          // once for the presentation string (RFC 9460 Appendix A.1).
          for (std::size_t j = 0; j < v[k]; ++j) {
            std::uint8_t c = v[k + 1 + j];
            if (c == ',') {
              value += "\\\\,";
            } else if (c == '\\') {
              value += "\\\\\\\\";
            } else {
              append_escaped(value, {&c, 1}, false);
            }
          }
          k += 1u + v[k];
        }
        append_value(value, out);
        break;
      }
      case 2:
        break;
      case 3:
        out += '=' + std::to_string(get16(v));
        break;
      case 4:
        out += '=';
        for (std::size_t k = 0; k < len; k += 4) {
          if (k) out += ',';
          append_ipv4(v + k, out);
        }
        break;
      case 5:
        out += '=';
        base64_encode({v, len}, out);
        break;
      case 6:
        out += '=';
        for (std::size_t k = 0; k < len; k += 16) {
          if (k) out += ',';
          append_ipv6(v + k, out);
        }
        break;
      default:
        if (len > 0) {
          std::string value;
          append_escaped(value, {v, len}, false);
          append_value(value, out);
        }
    }
    i += 4u + len;
  }
}

namespace {

// Unescapes a presentation value, then splits it on commas; "\," and "\\"
// at the list level stand for a literal comma and backslash (RFC 9460
// Appendix A.1: value-lists are escaped twice).
bool split_list(std::string_view raw, std::vector<std::vector<std::uint8_t>>& items) {
  std::vector<std::uint8_t> bytes;
  if (!unescape(raw, bytes)) return false;
  std::vector<std::uint8_t> cur;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::uint8_t c = bytes[i];
    if (c == '\\' && i + 1 < bytes.size()) {
      cur.push_back(bytes[++i]);
    } else if (c == ',') {
      items.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  items.push_back(std::move(cur));
  return true;
}

}  // namespace

Error svc_params_from_text(std::span<const TextToken> tokens, std::vector<std::uint8_t>& out) {
  std::map<std::uint16_t, std::vector<std::uint8_t>> params;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const TextToken& tok = tokens[t];
    std::string_view s = tok.text;
    std::size_t eq = s.find('=');
    std::string_view key_text = s.substr(0, eq);
    auto key = key_from_text(key_text);
    if (!key || *key == 65535) return text_error(tok.offset, "expected a SvcParamKey");
    if (params.count(*key)) return text_error(tok.offset, "SvcParamKey repeated");
    std::string_view raw;
    bool has_value = eq != std::string_view::npos;
    if (has_value) {
      raw = s.substr(eq + 1);
      // key="quoted value" arrives as a token "key=" then a quoted token.
      if (raw.empty() && t + 1 < tokens.size() && tokens[t + 1].quoted) raw = tokens[++t].text;
    }
    std::vector<std::uint8_t> v;
    std::vector<std::vector<std::uint8_t>> items;
    auto bad = [&](const char* what) { return text_error(tok.offset, what); };
    switch (*key) {
      case 0: {
        if (!split_list(raw, items)) return bad("bad mandatory list");
        std::vector<std::uint16_t> keys;
        for (auto& item : items) {
          // Safety: octets viewed as chars of the same size, read only
          auto k = key_from_text(
              std::string_view(reinterpret_cast<const char*>(item.data()), item.size()));
          if (!k) return bad("expected SvcParamKeys in mandatory");
          keys.push_back(*k);
        }
        std::sort(keys.begin(), keys.end());
        for (std::uint16_t k : keys) {
          v.push_back(static_cast<std::uint8_t>(k >> 8));
          v.push_back(static_cast<std::uint8_t>(k));
        }
        break;
      }
      case 1: {
        if (!split_list(raw, items)) return bad("bad alpn list");
        for (auto& item : items) {
          if (item.empty() || item.size() > 255) return bad("empty or long alpn id");
          v.push_back(static_cast<std::uint8_t>(item.size()));
          v.insert(v.end(), item.begin(), item.end());
        }
        break;
      }
      case 2:
        if (has_value) return bad("no-default-alpn takes no value");
        break;
      case 3: {
        unsigned port = 0;
        auto [p, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), port);
        if (ec != std::errc{} || p != raw.data() + raw.size() || port > 65535)
          return bad("expected a port number");
        v = {static_cast<std::uint8_t>(port >> 8), static_cast<std::uint8_t>(port)};
        break;
      }
      case 4:
      case 6: {
        std::size_t start = 0;
        while (start <= raw.size()) {
          std::size_t comma = raw.find(',', start);
          std::string_view a = raw.substr(start, comma - start);
          std::uint8_t addr[16];
          if (*key == 4 ? !parse_ipv4(a, addr) : !parse_ipv6(a, addr))
            return bad(*key == 4 ? "expected IPv4 addresses" : "expected IPv6 addresses");
          v.insert(v.end(), addr, addr + (*key == 4 ? 4 : 16));
          if (comma == std::string_view::npos) break;
          start = comma + 1;
        }
        break;
      }
      case 5:
        if (!base64_decode(raw, v)) return bad("expected base64 ECHConfigList");
        break;
      default:
        if (!unescape(raw, v)) return bad("bad escape in value");
    }
    if (!value_ok(*key, v.data(), v.size())) return bad("invalid SvcParamValue");
    params.emplace(*key, std::move(v));
  }
  // Every key named in mandatory must be present (RFC 9460 §8).
  if (auto it = params.find(0); it != params.end()) {
    for (std::size_t i = 0; i < it->second.size(); i += 2) {
      if (!params.count(get16(it->second.data() + i)))
        return text_error(tokens.front().offset, "mandatory key missing");
    }
  }
  for (auto& [key, v] : params) {
    if (v.size() > 65535) return text_error(tokens.front().offset, "SvcParamValue too long");
    out.push_back(static_cast<std::uint8_t>(key >> 8));
    out.push_back(static_cast<std::uint8_t>(key));
    out.push_back(static_cast<std::uint8_t>(v.size() >> 8));
    out.push_back(static_cast<std::uint8_t>(v.size()));
    out.insert(out.end(), v.begin(), v.end());
  }
  return {};
}

}  // namespace herald::dns::detail
