// What each field kind of detail/rdata_schema.hpp means, as one row per
// kind: how it is read from the wire (validated, names decompressed), how it
// is written in presentation form, and how it is parsed from it, plus the
// two facts the callers' loops need (spacing in text, name compression).
//
// The three directions used to be three parallel switches over Field in
// rdata_wire.cpp and rdata_text.cpp (a fourth, partial one walked the RFC
// 1035 layouts to compress), so a new kind meant editing each of them and
// nothing checked they agreed. Here a kind is one row whose functions sit
// together in rdata_fields.cpp, and a static_assert there refuses a table
// that misses an enumerator or has one out of place. rdata_wire.cpp and
// rdata_text.cpp only loop over a descriptor's fields.
//
// Plain function pointers in constant data: no objects to build, and an
// indirect call per field costs no more than the switch's jump did
// (callgrind, every record of the test zones through validate, from_wire
// and to_wire: 6-9% fewer instructions than the switches; to and from
// text: 3-4% fewer).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dns/buffer.hpp"
#include "dns/detail/rdata_schema.hpp"
#include "dns/error.hpp"
#include "dns/name.hpp"
#include "dns/rdata.hpp"

namespace herald::dns::detail {

// Where decoded RDATA octets go: a vector, or nowhere when only validating
// (rdata_validate runs on the encoder's path and must not allocate).
struct Sink {
  std::vector<std::uint8_t>* v;
  std::size_t count = 0;  // octets appended (or that would have been)
  template <class It>
  void append(It first, It last) {
    // Safety: a range of the reader's octets, so `last` is never before `first`
    count += static_cast<std::size_t>(last - first);
    if (v != nullptr) v->insert(v->end(), first, last);
  }
};

// The RDATA being decoded. The reader's limit is the end of the RDATA.
struct WireContext {
  // The RDATA's first octet in the reader: IPSECKEY's gateway reads the
  // gateway type, the second octet (RFC 4025 §2.1).
  std::size_t rdata_start;
  // The reader holds a whole message, where the RFC 1035 names may be
  // compressed; false for uncompressed RDATA.
  bool message;
};

// The tokens of one RDATA's presentation form, consumed field by field.
class TextReader {
 public:
  TextReader(std::span<const TextToken> tokens) : tokens_(tokens) {}  // NOLINT
  bool done() const { return i_ == tokens_.size(); }
  const TextToken* next() { return done() ? nullptr : &tokens_[i_++]; }
  // Every token left (the fields that run to the end of the RDATA).
  std::span<const TextToken> rest() {
    auto r = tokens_.subspan(i_);
    i_ = tokens_.size();
    return r;
  }
  // Where the next token starts, or where the text ends.
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

// Reads the field at the cursor, checks it, appends its uncompressed octets.
// Errors carry the offset in the reader of the first bad octet.
using DecodeFn = Error (*)(Reader& r, const WireContext& c, Sink& out);
// Appends the text of the field at `pos` of RDATA already valid for its
// layout (so every read is in range); returns the position after it.
using ToTextFn = std::size_t (*)(std::span<const std::uint8_t> rdata, std::size_t pos,
                                 std::string& out);
// Parses the field from the next token(s) and appends its octets to `out`
// (the RDATA so far). Relative names are completed with `origin`.
using FromTextFn = Error (*)(TextReader& in, const Name& origin, std::vector<std::uint8_t>& out);

// How a field is separated from the one before it in text (none before the
// first field of a record).
enum class Spacing : std::uint8_t {
  space,       // one space
  none_empty,  // one space, but none if no octet is left: the field runs to
               // the end of the RDATA and prints nothing for nothing
  own,         // none: the field writes a space before each of its items
               // (type bitmap, SvcParams)
};

// Names and RFC 3597 §4.
enum class Compression : std::uint8_t {
  none,        // not a name, or a name never compressed either way
  decompress,  // a decoder follows pointers; an encoder must not make them
  both,        // RFC 1035 names: decompressed, and compressed on encode
};

struct FieldKind {
  Field field;  // the row's own enumerator, checked against its index
  DecodeFn decode;
  ToTextFn to_text;
  FromTextFn from_text;
  Spacing spacing;
  Compression compression;
};

extern const std::array<FieldKind, kFieldCount> kFieldKinds;

inline const FieldKind& field_kind(Field f) noexcept {
  return kFieldKinds[static_cast<std::size_t>(f)];
}

}  // namespace herald::dns::detail
