// The zone-file parser (RFC 1035 §5, with RFC 2308 $TTL, RFC 3597 generic
// types and BIND's $GENERATE).
//
//   <line> ::= [<owner>] [<TTL>] [<class>] <type> <RDATA>     (TTL and class
//            | $ORIGIN <name>                                  in either order)
//            | $TTL <ttl>
//            | $INCLUDE <file> [<origin>]
//            | $GENERATE <range> <lhs> [<TTL>] [<class>] <type> <rhs>
//
// A line with no owner (starting with white space) reuses the previous
// owner; "@" is the current origin; relative names get the origin appended.
// A missing TTL is $TTL's, else the last TTL given (RFC 1035 §5.1); a
// missing class is the previous record's, else IN.
//
// Errors never stop the parse: each names file, line and column and what was
// expected, the bad line is skipped, and parsing goes on, so one bad record
// does not hide the others. $INCLUDE is confined to the directory of the
// top-level zone file (no absolute paths or ".." leading out of it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dns/name.hpp"
#include "dns/record.hpp"

namespace herald::dns {

struct ZoneError {
  std::string file;
  std::size_t line = 0, column = 0;
  std::string message;
  // "file:line:column: message"
  std::string to_string() const;
};

struct ZoneOptions {
  Name origin;                               // starting $ORIGIN
  std::optional<std::uint32_t> default_ttl;  // as if the file began with $TTL
  RRClass default_class = rrclass::IN;
  // $INCLUDE reads files below this directory; empty: $INCLUDE refused
  // (parse_zone_file sets it to the zone file's directory if left empty).
  std::string include_root;
  std::size_t max_include_depth = 8;
  std::size_t max_errors = 1000;     // stop collecting after this many
  std::size_t max_generate = 65536;  // records one $GENERATE may make
};

// Where a record came from: an index into ZoneResult::files and a 1-based
// line (the first physical line of its logical line). Zone-level checks
// (zone.hpp) report their errors with it.
struct RecordSource {
  std::uint32_t file = 0;
  std::uint32_t line = 0;
};

struct ZoneResult {
  std::vector<Record> records;        // in file order
  std::vector<RecordSource> sources;  // parallel to records
  std::vector<std::string> files;     // the top-level file, then $INCLUDEs
  std::vector<ZoneError> errors;
  bool ok() const noexcept { return errors.empty(); }
};

// Parses zone text; `file` names it in errors and locates relative $INCLUDEs.
ZoneResult parse_zone_text(std::string_view text, std::string_view file, const ZoneOptions& opt);
// Reads and parses a zone file.
ZoneResult parse_zone_file(const std::string& path, ZoneOptions opt);

// A TTL: decimal seconds or BIND units (1w2d3h4m5s), at most 2^31-1
// (RFC 2181 §8).
std::optional<std::uint32_t> parse_ttl(std::string_view s);

}  // namespace herald::dns
