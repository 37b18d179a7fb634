// Name compression (RFC 1035 §4.1.4) for one message being encoded.
//
// The map is keyed by name *suffix*, case-insensitively, and stores only the
// offset where that suffix starts in the output: no lowercased copy of any
// name is made (dns_erlang cut a 50-label name from 211 µs to 9.4 µs by
// keying compression on suffixes; we go one step further and never
// materialise keys). A lookup hashes the candidate suffix with ascii.hpp's
// folded hash and confirms a hit by walking the bytes already written at the
// stored offset, following our own pointers.
//
// Suffix hashes compose right to left (h(l1.l2...) = mix(h(l2...), h(l1))),
// so all suffixes of a name hash in one pass over its octets.
//
// Storage is fixed (no allocation): kMaxEntries entries in insertion order,
// chained from kBuckets heads. mark()/rollback() undo insertions made for
// records that truncation removes, so no entry ever points past the end of
// the output. Offsets >= 0x4000 are not stored: a pointer cannot reach them.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "dns/buffer.hpp"
#include "dns/name.hpp"

namespace herald::dns::detail {

class CompressionMap {
 public:
  static constexpr std::size_t kMaxEntries = 512;
  static constexpr std::size_t kBuckets = 1024;  // power of two

  CompressionMap() noexcept { heads_.fill(kNone); }
  void clear() noexcept {
    heads_.fill(kNone);
    size_ = 0;
    written_ = 0;
  }
  struct Mark {
    std::size_t entries, written;
  };
  Mark mark() const noexcept { return {size_, written_}; }
  void rollback(Mark mark) noexcept;

  // Writes `n` at the end of `w`, as a pointer to the longest suffix already
  // written, and records the new suffixes it writes.
  void write_name(Writer& w, const Name& n);
  // The same for a name given as its uncompressed wire octets, which must
  // be one valid name (RDATA of a loaded zone): no Name is built.
  void write_name(Writer& w, std::span<const std::uint8_t> wire);
  // write_name for a Name that stays at this address, unchanged, until
  // clear(): the same object written again becomes a pointer to where it
  // was first written, found by its address (no hashing, no compare). The
  // responder writes each owner once per record, RRSIGs included, from such
  // names (zone nodes, the question); D1's answers repeat an owner three
  // times on average.
  void write_stable_name(Writer& w, const Name& n);

 private:
  static constexpr std::uint16_t kNone = 0xFFFF;
  struct Entry {
    std::uint64_t hash;
    std::uint16_t offset;
    std::uint16_t next;
  };
  // True if the name written at `offset` equals `suffix` (its `suffix_len`
  // wire octets, root included), case-insensitively.
  bool matches(const Writer& w, std::size_t offset, const std::uint8_t* suffix,
               std::size_t suffix_len) const noexcept;
  void insert(std::uint64_t hash, std::size_t offset) noexcept;
  // `wire` is a valid uncompressed name of `wire_size` octets; `readable`
  // octets from `wire` on may be read (>= wire_size; more lets the label
  // hash read whole words).
  // Returns the offset where the whole name is recorded in the map (the
  // pointer write_name would write for it next), or kNone.
  std::uint16_t write_wire(Writer& w, const std::uint8_t* wire, std::size_t wire_size,
                           std::size_t readable);

  std::array<std::uint16_t, kBuckets> heads_;
  std::array<Entry, kMaxEntries> entries_;
  std::size_t size_ = 0;
  // Stable names written in full or as a pointer, and where (< 0x4000).
  static constexpr std::size_t kMaxWritten = 32;
  struct Written {
    const Name* name;
    std::uint16_t offset;
  };
  std::array<Written, kMaxWritten> written_at_;
  std::size_t written_ = 0;
};

}  // namespace herald::dns::detail
