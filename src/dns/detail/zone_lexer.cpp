#include "dns/detail/zone_lexer.hpp"

#include <utility>

namespace herald::dns::detail {

herald::Result<bool, LexError> ZoneLexer::next(LogicalLine& out) {
  for (;;) {
    out.tokens.clear();
    if (pos_ >= text_.size()) return false;
    out.line = line_;
    out.owner_blank = text_[pos_] == ' ' || text_[pos_] == '\t';
    int depth = 0;
    std::size_t paren_line = 0, paren_col = 0;
    // Each pass of this loop consumes one token or separator; it ends at a
    // newline outside parentheses or at the end of the text.
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
        if (depth == 0) break;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
        continue;
      }
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '(') {
        if (depth++ == 0) {
          paren_line = line_;
          paren_col = column_of(pos_);
        }
        ++pos_;
        continue;
      }
      if (c == ')') {
        if (depth == 0) {
          LexError e{"')' without '('", line_, column_of(pos_)};
          while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
          return e;
        }
        --depth;
        ++pos_;
        continue;
      }
      LexToken t;
      t.line = line_;
      t.column = column_of(pos_);
      if (c == '"') {
        std::size_t start = ++pos_;
        // A quoted string ends on its line: an unescaped newline inside it
        // is an error, and lexing resumes on the next line.
        while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
          if (text_[pos_] == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') ++pos_;
          ++pos_;
        }
        if (pos_ >= text_.size() || text_[pos_] == '\n') {
          return LexError{"unterminated quoted string", t.line, t.column};
        }
        t.tok = TextToken{text_.substr(start, pos_ - start), true, start};
        ++pos_;  // closing quote
        out.tokens.push_back(t);
        continue;
      }
      std::size_t start = pos_;
      while (pos_ < text_.size()) {
        char d = text_[pos_];
        if (d == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') {
          pos_ += 2;
          continue;
        }
        if (d == ' ' || d == '\t' || d == '\r' || d == '\n' || d == ';' || d == '(' || d == ')' ||
            d == '"') {
          break;
        }
        ++pos_;
      }
      t.tok = TextToken{text_.substr(start, pos_ - start), false, start};
      out.tokens.push_back(t);
    }
    if (depth > 0) {
      return LexError{"'(' not closed", paren_line, paren_col};
    }
    if (!out.tokens.empty()) return true;
  }
}

herald::Result<std::vector<TextToken>, LexError> ZoneLexer::first_line(std::string_view text) {
  ZoneLexer lex(text);
  LogicalLine ll;
  herald::Result<bool, LexError> got = lex.next(ll);
  if (!got) return std::move(got).error();
  std::vector<TextToken> tokens;
  tokens.reserve(ll.tokens.size());
  for (const LexToken& t : ll.tokens) tokens.push_back(t.tok);
  return tokens;
}

}  // namespace herald::dns::detail
