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

class ZoneLexer {
 public:
  explicit ZoneLexer(std::string_view text) : text_(text) {}
  // Reads the next non-empty logical line. Returns false at the end of the
  // text. On a lexical error (unterminated quote or parenthesis) `error` is
  // set, with line/column, and the rest of that line is skipped.
  bool next(LogicalLine& out, std::string& error, std::size_t& err_line, std::size_t& err_col);

 private:
  std::size_t column_of(std::size_t offset) const { return offset - line_start_ + 1; }
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
};

}  // namespace herald::dns::detail
