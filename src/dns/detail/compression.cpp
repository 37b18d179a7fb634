#include "dns/detail/compression.hpp"

#include "dns/detail/ascii.hpp"

namespace herald::dns::detail {
namespace {

std::uint64_t mix(std::uint64_t tail, std::uint64_t label) noexcept {
  std::uint64_t h = (tail ^ (label + 0x9E3779B97F4A7C15ULL + (tail << 6) + (tail >> 2)));
  return h * 0xBF58476D1CE4E5B9ULL;
}

}  // namespace

void CompressionMap::rollback(Mark mark) noexcept {
  written_ = mark.written;
  // Entries are pushed at the head of their chain, so popping them newest
  // first restores each chain exactly.
  while (size_ > mark.entries) {
    --size_;
    const Entry& e = entries_[size_];
    heads_[e.hash & (kBuckets - 1)] = e.next;
  }
}

void CompressionMap::insert(std::uint64_t hash, std::size_t offset) noexcept {
  if (offset >= 0x4000 || size_ == kMaxEntries) return;  // unreachable or full: no entry
  std::size_t b = hash & (kBuckets - 1);
  entries_[size_] = Entry{hash, static_cast<std::uint16_t>(offset), heads_[b]};
  heads_[b] = static_cast<std::uint16_t>(size_);
  ++size_;
}

bool CompressionMap::matches(const Writer& w, std::size_t offset, const std::uint8_t* suffix,
                             std::size_t suffix_len) const noexcept {
  // The output holds only names this map wrote: labels, then a root or a
  // pointer strictly backwards, so the walk terminates. We still bound it by
  // the output size for safety.
  //
  // Each run of plain labels in the output (up to a pointer or the root) is
  // compared with the suffix in one folded compare, length octets included:
  // a length octet (<= 63) is below 'A' and unchanged by folding, so equal
  // runs mean equal labels one by one. Most of an encode's time went to the
  // label-by-label byte loop this replaces (callgrind on D1's query mix,
  // docs/benchmarks.md); the naive twin in compression_test checks it.
  const std::uint8_t* out = w.data();
  const std::size_t size = w.size();
  std::size_t pos = offset;
  std::size_t s = 0;
  for (std::size_t steps = 0; steps < 256; ++steps) {
    std::size_t end = pos;
    while (end < size && out[end] != 0 && (out[end] & 0xC0) == 0) end += 1u + out[end];
    if (end >= size) return false;
    const bool root = out[end] == 0;
    std::size_t run = end - pos + (root ? 1 : 0);
    if (run > suffix_len - s || !iequal_swar(out + pos, suffix + s, run)) return false;
    if (root) return s + run == suffix_len;
    s += run;
    if ((out[end] & 0xC0) != 0xC0 || end + 1 >= size) return false;
    pos = static_cast<std::size_t>(out[end] & 0x3F) << 8 | out[end + 1];
  }
  return false;
}

void CompressionMap::write_name(Writer& w, const Name& n) {
  // A Name's octets sit in a fixed array of kMaxNameWire: the hash may read
  // past the name's end up to there.
  (void)write_wire(w, n.wire().data(), n.wire_size(), kMaxNameWire);
}

void CompressionMap::write_stable_name(Writer& w, const Name& n) {
  for (std::size_t i = 0; i < written_; ++i) {
    if (written_at_[i].name == &n) {
      // Exactly what write_name would write: the whole name is in the map
      // (it was recorded), so it becomes a pointer to that entry's offset.
      return w.u16(static_cast<std::uint16_t>(0xC000 | written_at_[i].offset));
    }
  }
  std::uint16_t at = write_wire(w, n.wire().data(), n.wire_size(), kMaxNameWire);
  if (at != kNone && written_ < kMaxWritten) written_at_[written_++] = Written{&n, at};
}

void CompressionMap::write_name(Writer& w, std::span<const std::uint8_t> wire) {
  (void)write_wire(w, wire.data(), wire.size(), wire.size());
}

std::uint16_t CompressionMap::write_wire(Writer& w, const std::uint8_t* wire, std::size_t wire_size,
                                         std::size_t readable) {
  // Label offsets, then suffix hashes from the root leftwards.
  std::array<std::uint8_t, 128> at;
  std::array<std::uint64_t, 128> hash;
  std::size_t labels = 0;
  for (std::size_t p = 0; wire[p] != 0; p += 1u + wire[p])
    at[labels++] = static_cast<std::uint8_t>(p);
  std::uint64_t h = 0;
  for (std::size_t i = labels; i-- > 0;) {
    std::size_t len = 1u + wire[at[i]];
    h = mix(h, at[i] + len + 8 <= readable ? ihash_overread(wire + at[i], len)
                                           : ihash(wire + at[i], len));
    hash[i] = h;
  }
  // Longest suffix first: the first hit is the best pointer.
  std::size_t hit = labels;
  std::size_t hit_offset = 0;
  for (std::size_t i = 0; i < labels && hit == labels; ++i) {
    for (std::uint16_t e = heads_[hash[i] & (kBuckets - 1)]; e != kNone; e = entries_[e].next) {
      if (entries_[e].hash == hash[i] &&
          matches(w, entries_[e].offset, wire + at[i], wire_size - at[i])) {
        hit = i;
        hit_offset = entries_[e].offset;
        break;
      }
    }
  }
  std::size_t start = w.size();
  std::size_t prefix = hit == labels ? wire_size : at[hit];
  w.bytes({wire, prefix});
  if (hit != labels) w.u16(static_cast<std::uint16_t>(0xC000 | hit_offset));
  if (w.overflow()) return kNone;
  std::size_t before = size_;
  for (std::size_t i = 0; i < hit; ++i) insert(hash[i], start + at[i]);
  // Where the whole name is now recorded, if it is: found whole, or its
  // entry just made (insert skips offsets a pointer cannot reach, and a
  // full map).
  if (labels == 0) return kNone;  // the root: one octet, never a pointer
  if (hit == 0) return static_cast<std::uint16_t>(hit_offset);
  if (labels > 0 && size_ > before && entries_[before].offset == start) {
    return static_cast<std::uint16_t>(start);
  }
  return kNone;
}

}  // namespace herald::dns::detail
