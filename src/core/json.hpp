// Minimal JSON output helpers: escaping into an accumulating buffer. Herald
// writes JSON by appending to one std::string per message (never building a
// tree), so the only shared piece is a correct string escaper.
#pragma once

#include <string>
#include <string_view>

namespace herald::json {

// Appends `s` as a quoted JSON string. Control characters become \u00XX;
// bytes >= 0x80 are copied as they are (the caller guarantees UTF-8).
inline void append_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out += kHex[u >> 4];
          out += kHex[u & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace herald::json
