// The zone-file lexer (RFC 1035 §5.1): splits master-file text into logical
// lines of tokens. A logical line is one physical line, or several joined by
// parentheses; comments (';' to the end of the line) are dropped; quoted
// strings are one token with their escapes intact; a backslash escapes the
// next character in a bare token (so "\ " and "\;" stay inside it). A '"'
// inside a bare token ends it and starts a quoted token (key="value" of
// SVCB). Tokens are views into the text, which must outlive them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "dns/rdata.hpp"

namespace herald::dns::detail {

struct LexToken {
  TextToken tok;                     // text, quoted, offset into the whole text
  std::size_t line = 0, column = 0;  // 1-based
};

struct LogicalLine {
  std::vector<LexToken> tokens;
  bool owner_blank = false;  // the line began with white space: no owner
  std::size_t line = 0;      // first physical line
};

// What is wrong and where (1-based), e.g. "'(' not closed" at its '('.
struct LexError {
  std::string message;
  std::size_t line = 0, column = 0;
};

class ZoneLexer {
 public:
  explicit ZoneLexer(std::string_view text) : text_(text) {}
  // Reads the next non-empty logical line into `out` (whose storage is
  // reused): true with a line, false at the end of the text. A lexical
  // error (an unterminated quote or parenthesis) is a LexError; the rest of
  // that line is skipped and the next call goes on after it.
  herald::Result<bool, LexError> next(LogicalLine& out);

  // The tokens of the text's first logical line (none for empty text):
  // RDATA text split exactly as the zone parser splits it.
  static herald::Result<std::vector<TextToken>, LexError> first_line(std::string_view text);

 private:
  std::size_t column_of(std::size_t offset) const { return offset - line_start_ + 1; }
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
};

}  // namespace herald::dns::detail
