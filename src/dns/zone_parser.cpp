#include "dns/zone_parser.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dns/detail/text_codecs.hpp"
#include "dns/detail/zone_generate.hpp"
#include "dns/detail/zone_lexer.hpp"
#include "dns/rdata.hpp"

namespace herald::dns {

std::string ZoneError::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::optional<std::uint32_t> parse_ttl(std::string_view s) {
  std::uint64_t v = 0;
  // RFC 2181 §8: a TTL is at most 2^31 - 1.
  if (!detail::decimal_decode(s, 0x7FFFFFFFull, true, v)) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

namespace {

namespace fs = std::filesystem;

class Parser {
 public:
  Parser(const ZoneOptions& opt, ZoneResult& result) : opt_(opt), result_(result) {}

  void parse(std::string_view text, const std::string& file, const Name& origin, std::size_t depth,
             std::optional<std::uint32_t> dollar_ttl);

 private:
  struct State {
    std::string file;
    Name origin;
    std::optional<std::uint32_t> dollar_ttl;
  };

  void error(const State& st, std::size_t line, std::size_t col, std::string msg) {
    if (result_.errors.size() < opt_.max_errors) {
      result_.errors.push_back({st.file, line, col, std::move(msg)});
    }
  }
  // Index of `file` in result_.files, appended on first use (a zone has a
  // handful of files, so a linear search is enough).
  std::uint32_t file_index(const std::string& file) {
    auto& files = result_.files;
    for (std::size_t i = files.size(); i-- > 0;) {
      if (files[i] == file) return static_cast<std::uint32_t>(i);
    }
    files.push_back(file);
    return static_cast<std::uint32_t>(files.size() - 1);
  }
  void error_at(const State& st, const detail::LexToken& t, std::string msg) {
    error(st, t.line, t.column, std::move(msg));
  }
  // Maps an offset inside the text to the token holding it, for RDATA errors.
  void error_offset(const State& st, const detail::LogicalLine& ll, std::size_t offset,
                    std::string msg);

  void directive(State& st, const detail::LogicalLine& ll, std::size_t depth);
  void record(State& st, const detail::LogicalLine& ll);
  void generate(State& st, const detail::LogicalLine& ll);
  // Parses "[ttl] [class] type rdata..." from tokens[i...] for `owner`.
  bool record_tail(State& st, const detail::LogicalLine& ll, std::size_t i, const Name& owner,
                   std::span<const TextToken> rdata_override, bool use_override);
  std::optional<Name> name_token(State& st, const detail::LexToken& t);

  const ZoneOptions& opt_;
  ZoneResult& result_;
  std::optional<Name> last_owner_;
  std::optional<std::uint32_t> last_ttl_;
  std::optional<RRClass> last_class_;
  std::string_view text_;
};

void Parser::error_offset(const State& st, const detail::LogicalLine& ll, std::size_t offset,
                          std::string msg) {
  const detail::LexToken* best = ll.tokens.empty() ? nullptr : &ll.tokens.front();
  for (const auto& t : ll.tokens) {
    if (t.tok.offset <= offset) best = &t;
  }
  if (best == nullptr) return error(st, ll.line, 1, std::move(msg));
  std::size_t delta = offset >= best->tok.offset ? offset - best->tok.offset : 0;
  if (delta > best->tok.text.size()) delta = best->tok.text.size();
  error(st, best->line, best->column + delta, std::move(msg));
}

std::optional<Name> Parser::name_token(State& st, const detail::LexToken& t) {
  if (t.tok.quoted) {
    error_at(st, t, "expected a domain name, found a quoted string");
    return std::nullopt;
  }
  if (t.tok.text == "@") return st.origin;
  auto n = Name::from_text(t.tok.text, &st.origin);
  if (!n) {
    error(st, t.line, t.column + n.error().offset,
          "expected a domain name: " + (n.error().detail.empty()
                                            ? std::string(error_message(n.error().code))
                                            : n.error().detail));
    return std::nullopt;
  }
  return n.value();
}

void Parser::parse(std::string_view text, const std::string& file, const Name& origin,
                   std::size_t depth, std::optional<std::uint32_t> dollar_ttl) {
  State st{file, origin, dollar_ttl};
  if (depth == 0) last_ttl_.reset();
  detail::ZoneLexer lex(text);
  detail::LogicalLine ll;
  for (;;) {
    const herald::Result<bool, detail::LexError> more = lex.next(ll);
    if (!more) {
      const detail::LexError& e = more.error();
      error(st, e.line, e.column, e.message);
      continue;
    }
    if (!*more) break;
    const auto& first = ll.tokens.front();
    if (!ll.owner_blank && !first.tok.quoted && first.tok.text.starts_with("$")) {
      directive(st, ll, depth);
    } else {
      record(st, ll);
    }
  }
  // RFC 1035 §5.1: $ORIGIN set in an included file ends with it; so does its
  // $TTL (it starts with the includer's). Both live in this call's State.
}

void Parser::directive(State& st, const detail::LogicalLine& ll, std::size_t depth) {
  const auto& d = ll.tokens[0];
  std::string_view name = d.tok.text;
  auto arg = [&](std::size_t i) -> const detail::LexToken* {
    return i < ll.tokens.size() ? &ll.tokens[i] : nullptr;
  };
  if (name == "$ORIGIN") {
    const auto* a = arg(1);
    if (a == nullptr || ll.tokens.size() != 2)
      return error_at(st, d, "$ORIGIN expects exactly one domain name");
    if (auto n = name_token(st, *a)) st.origin = *n;
  } else if (name == "$TTL") {
    const auto* a = arg(1);
    if (a == nullptr || ll.tokens.size() != 2) return error_at(st, d, "$TTL expects one TTL");
    auto ttl = parse_ttl(a->tok.text);
    if (!ttl) return error_at(st, *a, "expected a TTL (seconds or 1w2d3h4m5s, up to 2^31-1)");
    st.dollar_ttl = ttl;
  } else if (name == "$INCLUDE") {
    const auto* a = arg(1);
    if (a == nullptr || ll.tokens.size() > 3)
      return error_at(st, d, "$INCLUDE expects a file name and an optional origin");
    if (opt_.include_root.empty()) return error_at(st, d, "$INCLUDE is not allowed here");
    if (depth + 1 > opt_.max_include_depth) return error_at(st, d, "$INCLUDE nested too deeply");
    Name inc_origin = st.origin;
    if (const auto* o = arg(2)) {
      auto n = name_token(st, *o);
      if (!n) return;
      inc_origin = *n;
    }
    std::string fname(a->tok.text);
    fs::path root = fs::weakly_canonical(fs::path(opt_.include_root));
    fs::path p = fs::path(fname);
    if (p.is_relative()) p = root / p;
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(p, ec);
    auto rel = canon.lexically_relative(root);
    if (ec || rel.empty() || *rel.begin() == "..") {
      return error_at(st, *a, "$INCLUDE file outside the zone directory: " + fname);
    }
    std::ifstream in(canon, std::ios::binary);
    if (!in) return error_at(st, *a, "cannot read $INCLUDE file " + fname);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string content = ss.str();
    auto saved_owner = last_owner_;
    parse(content, canon.string(), inc_origin, depth + 1, st.dollar_ttl);
    last_owner_ = saved_owner;
  } else if (name == "$GENERATE") {
    generate(st, ll);
  } else {
    error_at(st, d,
             "unknown directive " + std::string(name) +
                 " (expected $ORIGIN, $TTL, $INCLUDE or $GENERATE)");
  }
}

void Parser::record(State& st, const detail::LogicalLine& ll) {
  std::size_t i = 0;
  Name owner;
  if (ll.owner_blank) {
    if (!last_owner_) return error_at(st, ll.tokens[0], "no owner name, and no previous owner");
    owner = *last_owner_;
  } else {
    auto n = name_token(st, ll.tokens[0]);
    if (!n) return;
    owner = *n;
    i = 1;
  }
  last_owner_ = owner;
  record_tail(st, ll, i, owner, {}, false);
}

bool Parser::record_tail(State& st, const detail::LogicalLine& ll, std::size_t i, const Name& owner,
                         std::span<const TextToken> rdata_override, bool use_override) {
  std::optional<std::uint32_t> ttl;
  std::optional<RRClass> cls;
  std::optional<RRType> type;
  // [ttl] [class] or [class] [ttl], then the type.
  for (int k = 0; k < 3 && i < ll.tokens.size(); ++k) {
    const auto& t = ll.tokens[i];
    if (t.tok.quoted) break;
    if (!ttl && !t.tok.text.empty() && t.tok.text[0] >= '0' && t.tok.text[0] <= '9') {
      ttl = parse_ttl(t.tok.text);
      if (!ttl) {
        error_at(st, t, "expected a TTL (seconds or 1w2d3h4m5s, up to 2^31-1)");
        return false;
      }
      ++i;
      continue;
    }
    if (!cls) {
      if (auto c = class_from_text(t.tok.text)) {
        cls = c;
        ++i;
        continue;
      }
    }
    if (auto ty = type_from_text(t.tok.text)) {
      type = ty;
      ++i;
      break;
    }
    error_at(st, t, "expected a TTL, class or type, found '" + std::string(t.tok.text) + "'");
    return false;
  }
  if (!type) {
    const auto& t = ll.tokens.back();
    error(st, t.line, t.column + t.tok.text.size(), "expected a record type");
    return false;
  }
  if (*type == type::OPT || *type == type::ANY || *type == type::AXFR || *type == type::IXFR) {
    error_at(st, ll.tokens[i - 1], "type " + type_to_text(*type) + " cannot appear in a zone");
    return false;
  }
  RRClass rclass = cls ? *cls : last_class_ ? *last_class_ : opt_.default_class;
  std::uint32_t rttl;
  if (ttl) {
    rttl = *ttl;
  } else if (st.dollar_ttl) {
    rttl = *st.dollar_ttl;
  } else if (last_ttl_) {
    rttl = *last_ttl_;
  } else {
    error_at(st, ll.tokens[0], "no TTL: give one, or a $TTL directive");
    return false;
  }
  std::vector<TextToken> tokens;
  if (use_override) {
    tokens.assign(rdata_override.begin(), rdata_override.end());
  } else {
    for (std::size_t k = i; k < ll.tokens.size(); ++k) tokens.push_back(ll.tokens[k].tok);
  }
  auto rdata = rdata_from_text(*type, tokens, st.origin);
  if (!rdata) {
    std::string msg = type_to_text(*type) + " RDATA: " + rdata.error().detail;
    if (use_override) {
      error_at(st, ll.tokens[0], std::move(msg));
    } else {
      error_offset(st, ll, rdata.error().offset, std::move(msg));
    }
    return false;
  }
  if (ttl) last_ttl_ = ttl;
  last_class_ = rclass;
  result_.records.push_back(Record{owner, *type, rclass, rttl, std::move(rdata.value())});
  result_.sources.push_back({file_index(st.file), static_cast<std::uint32_t>(ll.line)});
  return true;
}

void Parser::generate(State& st, const detail::LogicalLine& ll) {
  // $GENERATE <range> <lhs> [ttl] [class] <type> <rhs>
  if (ll.tokens.size() < 5)
    return error_at(st, ll.tokens[0], "$GENERATE expects a range, an owner, a type and RDATA");
  auto range = detail::parse_generate_range(ll.tokens[1].tok.text);
  if (!range) return error_at(st, ll.tokens[1], "expected a range start-stop[/step]");
  std::size_t count = (range->stop - range->start) / range->step + 1;
  if (count > opt_.max_generate) return error_at(st, ll.tokens[1], "$GENERATE range too large");
  // The type's position: tokens[3..] hold [ttl] [class] type rhs.
  for (std::uint64_t v = range->start; v <= range->stop; v += range->step) {
    std::string lhs, rhs_text;
    if (!detail::expand_generate(ll.tokens[2].tok.text, v, lhs))
      return error_at(st, ll.tokens[2], "bad $ modifier in the owner template");
    // Everything after the type is the RHS template, one token per template
    // token; each expands to one token.
    std::size_t ti = 3;
    while (ti < ll.tokens.size() && !type_from_text(ll.tokens[ti].tok.text)) ++ti;
    if (ti + 1 >= ll.tokens.size())
      return error_at(st, ll.tokens[0], "$GENERATE expects a type and RDATA");
    std::vector<std::string> expanded;
    for (std::size_t k = ti + 1; k < ll.tokens.size(); ++k) {
      std::string e;
      if (!detail::expand_generate(ll.tokens[k].tok.text, v, e))
        return error_at(st, ll.tokens[k], "bad $ modifier in the RDATA template");
      expanded.push_back(std::move(e));
    }
    std::vector<TextToken> toks;
    for (std::size_t k = 0; k < expanded.size(); ++k) {
      toks.push_back(TextToken{expanded[k], ll.tokens[ti + 1 + k].tok.quoted,
                               ll.tokens[ti + 1 + k].tok.offset});
    }
    Name owner;
    if (lhs == "@") {
      owner = st.origin;
    } else {
      auto n = Name::from_text(lhs, &st.origin);
      if (!n) return error_at(st, ll.tokens[2], "generated owner is not a domain name: " + lhs);
      owner = n.value();
    }
    detail::LogicalLine head;
    head.line = ll.line;
    head.tokens.assign(ll.tokens.begin(), ll.tokens.begin() + static_cast<std::ptrdiff_t>(ti) + 1);
    if (!record_tail(st, head, 3, owner, toks, true)) return;
  }
}

}  // namespace

ZoneResult parse_zone_text(std::string_view text, std::string_view file, const ZoneOptions& opt) {
  ZoneResult result;
  Parser p(opt, result);
  p.parse(text, std::string(file), opt.origin, 0, opt.default_ttl);
  return result;
}

ZoneResult parse_zone_file(const std::string& path, ZoneOptions opt) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ZoneResult r;
    r.errors.push_back({path, 0, 0, "cannot read the zone file"});
    return r;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (opt.include_root.empty()) {
    opt.include_root = fs::absolute(fs::path(path)).parent_path().string();
  }
  return parse_zone_text(text, path, opt);
}

}  // namespace herald::dns
