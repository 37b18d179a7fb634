// Minimal JSON output helpers: escaping into an accumulating buffer. Herald
// writes JSON by appending to one std::string per message (never building a
// tree), so the only shared piece is a correct string escaper.
#pragma once

#include <string>
#include <string_view>

namespace herald::json {

// Appends `s` escaped for the inside of a JSON string, without the quotes.
// The one escaper of the project: JSON output and the log's quoted values
// (core/log.cpp, both formats) go through it. Control characters and DEL
// become \u00XX (DEL is valid JSON as it is, but a log line read on a
// terminal must not carry it); bytes >= 0x80 are copied as they are (the
// caller guarantees UTF-8).
inline void append_escaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : s) {
    // Safety: a char's bits read as a byte 0-255, to compare and index kHex.
    const auto u = static_cast<unsigned char>(c);
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
        if (u < 0x20 || u == 0x7f) {
          out += "\\u00";
          out += kHex[u >> 4];
          out += kHex[u & 0xf];
        } else {
          out += c;
        }
    }
  }
}

// Appends `s` as a quoted JSON string.
inline void append_string(std::string& out, std::string_view s) {
  out += '"';
  append_escaped(out, s);
  out += '"';
}

}  // namespace herald::json
