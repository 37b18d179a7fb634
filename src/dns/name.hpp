// Domain names (RFC 1035 §3.1), held in uncompressed wire form, original case
// preserved, inline (no heap allocation: a Name is a value of 257 octets).
//
//   wire form of "www.Example.com.":
//   +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
//   | 3 | w | w | w | 7 | E | x | a | m | p | l | e | 3 | c | o | m | 0 |
//   +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
//
// Invariants: the wire form is 1..255 octets, ends with the root label (0),
// every label is 1..63 octets. Every constructor checks them; nothing else
// can make a Name. Comparison and hashing are case-insensitive without
// copies (detail/ascii.hpp); operator== is exact (case-sensitive), which is
// what round-trip tests need.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "dns/buffer.hpp"
#include "dns/error.hpp"

namespace herald::dns {

inline constexpr std::size_t kMaxNameWire = 255;
inline constexpr std::size_t kMaxLabel = 63;

class Name {
 public:
  Name() noexcept { wire_[0] = 0; }  // the root
  // Copies only the octets in use (a name is usually a few dozen of its 255):
  // names are copied per query (decoding, CNAME targets).
  Name(const Name& o) noexcept : len_(o.len_), labels_(o.labels_) {
    std::memcpy(wire_.data(), o.wire_.data(), len_);
  }
  Name& operator=(const Name& o) noexcept {
    len_ = o.len_;
    labels_ = o.labels_;
    std::memmove(wire_.data(), o.wire_.data(), len_);
    return *this;
  }

  // Reads a possibly compressed name from a message. On success the cursor
  // ends after the name's last octet in place: after the root label, or after
  // the first compression pointer (the octets a pointer leads to are never
  // "consumed"). Each pointer must lead strictly before the start of the run
  // of labels that contains it, so the walk terminates: the chunk starts
  // strictly decrease. On error the cursor is unspecified.
  static Result<Name> from_wire(Reader& r);

  // Parses the presentation form (RFC 1035 §5.1: \X and \DDD escapes). A name
  // not ending in an unescaped '.' is relative and gets `origin` appended;
  // with no origin it is an error. "@" is not handled here (zone parser).
  static Result<Name> from_text(std::string_view text, const Name* origin = nullptr);

  // From uncompressed wire octets (must be exactly one valid name).
  static Result<Name> from_uncompressed(std::span<const std::uint8_t> wire);

  std::span<const std::uint8_t> wire() const noexcept { return {wire_.data(), len_}; }
  std::size_t wire_size() const noexcept { return len_; }
  std::size_t label_count() const noexcept { return labels_; }  // root not counted
  bool is_root() const noexcept { return len_ == 1; }

  // Presentation form, absolute (trailing dot), escaped as RFC 4343 says.
  std::string to_text() const;
  void append_text(std::string& out) const;

  // Case-insensitive comparison and hash (no lowercased copy).
  bool iequals(const Name& other) const noexcept;
  std::uint64_t ihash() const noexcept;
  // True if this name is `zone` or below it (case-insensitive).
  bool is_subdomain_of(const Name& zone) const noexcept;
  // This name with ASCII letters folded to lower case.
  Name lowercased() const noexcept;
  // RFC 4034 §6.1 canonical ordering: <0, 0, >0.
  int canonical_compare(const Name& other) const noexcept;
  // Appends `suffix` (relative name + origin); fails if over 255 octets.
  Result<Name> concat(const Name& suffix) const;
  // The name without its first `n` labels (n <= label_count()).
  Name parent(std::size_t n = 1) const noexcept;

  friend bool operator==(const Name& a, const Name& b) noexcept {
    return a.len_ == b.len_ &&
           std::equal(a.wire_.begin(), a.wire_.begin() + a.len_, b.wire_.begin());
  }

 private:
  // Length and label count first: with the first octets of the name they
  // share a cache line, so a short name is read from one line.
  std::uint8_t len_ = 1;
  std::uint8_t labels_ = 0;
  std::array<std::uint8_t, kMaxNameWire> wire_;
};

// Hash and equality functors for case-insensitive containers.
struct NameIHash {
  std::size_t operator()(const Name& n) const noexcept { return n.ihash(); }
};
struct NameIEqual {
  bool operator()(const Name& a, const Name& b) const noexcept { return a.iequals(b); }
};

// Appends one label or character-string octet sequence in presentation form
// with escapes (shared by names, TXT strings and CAA values).
// `in_name` escapes '.' and '@' too; quoted strings need only '"' and '\'.
void append_escaped(std::string& out, std::span<const std::uint8_t> bytes, bool in_name);

}  // namespace herald::dns
