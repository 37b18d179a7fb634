#include "dns/detail/compression.hpp"

#include "dns/detail/ascii.hpp"

namespace herald::dns::detail {
namespace {

std::uint64_t mix(std::uint64_t tail, std::uint64_t label) noexcept {
  std::uint64_t h = (tail ^ (label + 0x9E3779B97F4A7C15ULL + (tail << 6) + (tail >> 2)));
  return h * 0xBF58476D1CE4E5B9ULL;
}

}  // namespace

void CompressionMap::rollback(std::size_t mark) noexcept {
  // Entries are pushed at the head of their chain, so popping them newest
  // first restores each chain exactly.
  while (size_ > mark) {
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

bool CompressionMap::matches(const Writer& w, std::size_t offset,
                             const std::uint8_t* suffix) const noexcept {
  // The output holds only names this map wrote: labels, then a root or a
  // pointer strictly backwards, so the walk terminates. We still bound it by
  // the output size for safety.
  const std::uint8_t* out = w.data();
  std::size_t pos = offset;
  std::size_t s = 0;
  for (std::size_t steps = 0; steps < 256; ++steps) {
    if (pos >= w.size()) return false;
    std::uint8_t b = out[pos];
    if ((b & 0xC0) == 0xC0) {
      if (pos + 1 >= w.size()) return false;
      pos = static_cast<std::size_t>(b & 0x3F) << 8 | out[pos + 1];
      continue;
    }
    if (b != suffix[s]) return false;
    if (b == 0) return true;
    if (pos + 1 + b > w.size() || !iequal_plain(out + pos + 1, suffix + s + 1, b)) return false;
    pos += 1u + b;
    s += 1u + b;
  }
  return false;
}

void CompressionMap::write_name(Writer& w, const Name& n) {
  const std::uint8_t* wire = n.wire().data();
  std::size_t labels = n.label_count();
  // Label offsets, then suffix hashes from the root leftwards.
  std::array<std::uint8_t, 128> at;
  std::array<std::uint64_t, 128> hash;
  std::size_t p = 0;
  for (std::size_t i = 0; i < labels; ++i) {
    at[i] = static_cast<std::uint8_t>(p);
    p += 1u + wire[p];
  }
  std::uint64_t h = 0;
  for (std::size_t i = labels; i-- > 0;) {
    h = mix(h, ihash(wire + at[i], 1u + wire[at[i]]));
    hash[i] = h;
  }
  // Longest suffix first: the first hit is the best pointer.
  std::size_t hit = labels;
  std::size_t hit_offset = 0;
  for (std::size_t i = 0; i < labels && hit == labels; ++i) {
    for (std::uint16_t e = heads_[hash[i] & (kBuckets - 1)]; e != kNone; e = entries_[e].next) {
      if (entries_[e].hash == hash[i] && matches(w, entries_[e].offset, wire + at[i])) {
        hit = i;
        hit_offset = entries_[e].offset;
        break;
      }
    }
  }
  std::size_t start = w.size();
  std::size_t prefix = hit == labels ? n.wire_size() : at[hit];
  w.bytes({wire, prefix});
  if (hit != labels) w.u16(static_cast<std::uint16_t>(0xC000 | hit_offset));
  if (w.overflow()) return;
  for (std::size_t i = 0; i < hit; ++i) insert(hash[i], start + at[i]);
}

}  // namespace herald::dns::detail
