// Errors of the DNS codec: values, never exceptions (decoding is the hot path
// of an authoritative server: every query is decoded, every answer encoded).
//
// An Error is a code and the wire offset where decoding stopped. Each code has
// a fixed message (error_message) and a disposition (disposition): what a
// server does with a query that failed that way, as dns_erlang classifies it:
//   drop     nothing trustworthy to answer to (no full header, or a response
//            arriving where a query was expected: answering it invites loops);
//   notimp   well-formed, but asks for something we do not implement (opcode);
//   formerr  the header is readable but the rest is malformed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/result.hpp"

namespace herald::dns {

enum class Errc : std::uint8_t {
  ok = 0,
  short_header,      // fewer than 12 octets
  truncated,         // a field runs past the end of the message or RDATA
  trailing_data,     // octets left after the last counted record
  label_too_long,    // a label over 63 octets (text form)
  name_too_long,     // a name over 255 octets in wire form
  bad_label_type,    // label type 0b01 or 0b10 (RFC 6891 §5: obsolete/reserved)
  pointer_forward,   // a compression pointer to itself or later in the message
  pointer_loop,      // a pointer not strictly before the data it interrupts
  qr_in_query,       // QR=1 where a query was expected
  tc_in_query,       // TC=1 in a query
  bad_qdcount,       // a query with QDCOUNT != 1
  records_in_query,  // a record a query has no business carrying (decode_query)
  bad_opcode,        // an opcode the server does not implement
  opt_not_root,      // an OPT record whose owner is not the root
  opt_duplicate,     // more than one OPT record
  opt_misplaced,     // an OPT record outside the additional section
  bad_option,        // an EDNS option whose length does not fit its code
  tsig_not_last,     // a TSIG record that is not the last record (RFC 8945 §5.1)
  bad_rdata,         // RDATA that does not parse as its type
  rdata_too_long,    // RDATA over 65535 octets when encoding
  message_too_long,  // more than 65535 octets, or no room for the question
  bad_text,          // presentation form that does not parse
};

// The fixed English message for a code; never empty.
std::string_view error_message(Errc code) noexcept;

enum class Disposition : std::uint8_t { answer, formerr, notimp, drop };
Disposition disposition(Errc code) noexcept;
std::string_view disposition_name(Disposition d) noexcept;

// A code and where: the offset into the message (decoding) or into the text
// (presentation parsing). `detail` is filled only off the hot path (text
// parsing) to say what was expected.
struct [[nodiscard]] Error {
  Errc code = Errc::ok;
  std::uint32_t offset = 0;
  std::string detail;

  bool ok() const noexcept { return code == Errc::ok; }
  explicit operator bool() const noexcept { return code != Errc::ok; }
  // "truncated at offset 17" or "bad_text at offset 3: expected a TTL".
  std::string to_string() const;
};

inline Error make_error(Errc code, std::size_t offset) {
  return Error{code, static_cast<std::uint32_t>(offset), {}};
}
inline Error text_error(std::size_t offset, std::string detail) {
  return Error{Errc::bad_text, static_cast<std::uint32_t>(offset), std::move(detail)};
}

// A value or an Error (core/result.hpp: the convention every module shares).
template <class T>
using Result = herald::Result<T, Error>;

}  // namespace herald::dns
